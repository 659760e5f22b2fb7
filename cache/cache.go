// Package cache inventories and evicts the on-disk cache of retrievalbench
// (Dir, default ~/.cache/retrievalbench).
//
// The cache is a set of entries, each a directory (or file) a system or a
// fetcher created and reuses whole:
//
//	onnxruntime/<version>         ONNX Runtime library          kind onnxruntime
//	models/<id>                   embedding model files         kind models
//	bm25/<corpus>-<config>        one SQLite FTS5 index         kind bm25
//	dense/<model>                 one model's vector store      kind vectors
//	external/corpora              corpus trees handed to        kind external
//	                              external systems
//	external/work                 every external system's       kind external
//	                              work directory (its index)
//	peers/<name>                  an installed peer tool        kind peers
//	data/<name>, repoqa/<asset>   fetched datasets              kind data
//	anything else at the top      —                             kind other
//	.evict-*                      an interrupted eviction       kind trash
//
// Sizes are apparent sizes (the sum of regular file lengths; symbolic links
// are not followed). Last use is the newest modification or access time of
// any regular file in the entry (directories do not count: listing one,
// as a scan does, can bump its access time); access times are what the filesystem keeps (Linux
// "relatime" updates them at most once a day, "noatime" never), so last use
// is exact to about a day, and on noatime mounts it is the last write.
//
// Eviction renames each entry into a fresh .evict-* directory of the cache
// root (one atomic rename on the same filesystem) and only then deletes it,
// so no reader ever sees half an entry. It is meant for when nothing else
// runs. If a run is using the cache at the same time: a file it already
// has open (an index, a vector store, a loaded model) stays readable until
// it closes it, but what it writes there is lost; a path it opens after the
// rename is missing, so a BM25 index or a vector store is rebuilt, a
// missing model or ONNX Runtime makes the cell skip loudly (or fail under
// RETRIEVALBENCH_REQUIRE), and an index being built at that moment lands in
// the evicted directory and the cell fails to open it. Nothing corrupts an
// entry that survives.
package cache

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Kinds of entries, in the order Scan lists them.
const (
	KindONNXRuntime = "onnxruntime"
	KindModels      = "models"
	KindBM25        = "bm25"
	KindVectors     = "vectors"
	KindExternal    = "external"
	KindPeers       = "peers"
	KindData        = "data"
	KindOther       = "other"
	KindTrash       = "trash"
)

// Kinds lists every kind in listing order.
func Kinds() []string {
	return []string{KindONNXRuntime, KindModels, KindBM25, KindVectors, KindExternal, KindPeers, KindData, KindOther, KindTrash}
}

// layout maps a top-level directory of the cache to the kind of its
// children.
var layout = map[string]string{
	"onnxruntime": KindONNXRuntime,
	"models":      KindModels,
	"bm25":        KindBM25,
	"dense":       KindVectors,
	"external":    KindExternal,
	"peers":       KindPeers,
	"data":        KindData,
	"repoqa":      KindData,
}

const trashPrefix = ".evict-"

// Entry is one evictable unit of the cache.
type Entry struct {
	Kind     string
	Path     string // slash-separated, relative to the cache root
	Bytes    int64
	Files    int
	Modified time.Time // newest modification time of its files (of the entry itself when it has none)
	Accessed time.Time // newest access time of its files, as the filesystem keeps it
}

// LastUse is the later of Modified and Accessed.
func (e Entry) LastUse() time.Time {
	if e.Accessed.After(e.Modified) {
		return e.Accessed
	}
	return e.Modified
}

// Scan lists the entries under root, by kind (Kinds order) then path. A
// missing root is an empty cache.
func Scan(root string) ([]Entry, error) {
	top, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var es []Entry
	for _, d := range top {
		name := d.Name()
		kind, grouped := layout[name]
		switch {
		case strings.HasPrefix(name, trashPrefix):
			kind, grouped = KindTrash, false
		case grouped && d.Type()&fs.ModeSymlink != 0:
			// A linked input (a fresh cache that links the real models):
			// one entry of its kind, the link itself, never followed.
			grouped = false
		case !grouped || !d.IsDir():
			kind, grouped = KindOther, false
		}
		if !grouped {
			e, err := measure(root, name, kind)
			if err != nil {
				return nil, err
			}
			es = append(es, e)
			continue
		}
		kids, err := os.ReadDir(filepath.Join(root, name))
		if err != nil {
			return nil, err
		}
		for _, k := range kids {
			e, err := measure(root, name+"/"+k.Name(), kind)
			if err != nil {
				return nil, err
			}
			es = append(es, e)
		}
	}
	order := Kinds()
	sort.Slice(es, func(i, j int) bool {
		ki, kj := slices.Index(order, es[i].Kind), slices.Index(order, es[j].Kind)
		if ki != kj {
			return ki < kj
		}
		return es[i].Path < es[j].Path
	})
	return es, nil
}

// measure walks one entry without following symbolic links.
func measure(root, rel, kind string) (Entry, error) {
	e := Entry{Kind: kind, Path: rel}
	top := filepath.Join(root, filepath.FromSlash(rel))
	var own time.Time
	err := filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) { // removed while we walk
				return nil
			}
			return err
		}
		info, err := d.Info()
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if p == top {
			own = info.ModTime()
		}
		// Only regular files date an entry: listing a directory (this scan
		// included) can bump its access time.
		if !info.Mode().IsRegular() {
			return nil
		}
		e.Bytes += info.Size()
		e.Files++
		if t := info.ModTime(); t.After(e.Modified) {
			e.Modified = t
		}
		if t := accessTime(info); t.After(e.Accessed) {
			e.Accessed = t
		}
		return nil
	})
	if err != nil {
		return Entry{}, fmt.Errorf("scanning %s: %w", rel, err)
	}
	if e.Files == 0 { // an empty directory or a symbolic link: its own time
		e.Modified, e.Accessed = own, own
	}
	return e, nil
}

// Selector chooses entries to evict: All, or those of one of Kinds (every
// kind when empty) whose last use is more than OlderThan before Now (any
// age when 0). An empty Selector selects nothing.
type Selector struct {
	All       bool
	Kinds     []string
	OlderThan time.Duration
	Now       time.Time
}

// Validate reports an unknown kind, a negative age, or a selector that
// selects nothing.
func (s Selector) Validate() error {
	for _, k := range s.Kinds {
		if !slices.Contains(Kinds(), k) {
			return fmt.Errorf("unknown cache kind %q: want one of %s", k, strings.Join(Kinds(), ", "))
		}
	}
	switch {
	case s.OlderThan < 0:
		return fmt.Errorf("negative age %v", s.OlderThan)
	case !s.All && len(s.Kinds) == 0 && s.OlderThan == 0:
		return errors.New("nothing selected: give a kind, an age or all")
	}
	return nil
}

// Select returns the entries of es that s chooses.
func (s Selector) Select(es []Entry) []Entry {
	var out []Entry
	for _, e := range es {
		if s.All || s.match(e) {
			out = append(out, e)
		}
	}
	return out
}

func (s Selector) match(e Entry) bool {
	if len(s.Kinds) == 0 && s.OlderThan == 0 {
		return false
	}
	if len(s.Kinds) > 0 && !slices.Contains(s.Kinds, e.Kind) {
		return false
	}
	return s.OlderThan == 0 || s.Now.Sub(e.LastUse()) > s.OlderThan
}

// Evict removes es from root: each entry is renamed into a fresh .evict-*
// directory of root, then that directory is deleted. It returns the bytes
// freed and stops at the first error (entries already renamed are gone
// from their paths; a trash directory that failed to delete is listed as
// kind trash by the next Scan).
func Evict(root string, es []Entry) (int64, error) {
	var freed int64
	for _, e := range es {
		src := filepath.Join(root, filepath.FromSlash(e.Path))
		if e.Kind == KindTrash {
			if err := os.RemoveAll(src); err != nil {
				return freed, err
			}
			freed += e.Bytes
			continue
		}
		trash, err := os.MkdirTemp(root, trashPrefix)
		if err != nil {
			return freed, err
		}
		if err := os.Rename(src, filepath.Join(trash, filepath.Base(src))); err != nil {
			os.Remove(trash)
			if errors.Is(err, fs.ErrNotExist) {
				continue // someone else removed it first
			}
			return freed, fmt.Errorf("evicting %s: %w", e.Path, err)
		}
		if err := os.RemoveAll(trash); err != nil {
			return freed, fmt.Errorf("deleting evicted %s (left in %s): %w", e.Path, trash, err)
		}
		freed += e.Bytes
	}
	return freed, nil
}

// ParseAge parses an age such as "30d", "2w", "12h" or "90m" (time.Duration
// syntax plus d for days and w for weeks).
func ParseAge(s string) (time.Duration, error) {
	for suffix, unit := range map[string]time.Duration{"d": 24 * time.Hour, "w": 7 * 24 * time.Hour} {
		if n, ok := strings.CutSuffix(s, suffix); ok {
			v, err := strconv.ParseFloat(n, 64)
			if err != nil || v < 0 {
				return 0, fmt.Errorf("age %q: want a number before %q", s, suffix)
			}
			return time.Duration(v * float64(unit)), nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("age %q: want e.g. 30d, 2w, 12h", s)
	}
	return d, nil
}
