package matrix

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/retrievalbench/retrievalbench/internal/datafile"
	"github.com/retrievalbench/retrievalbench/internal/shard"
	"github.com/retrievalbench/retrievalbench/resultfmt"
)

// Key names one cell of the matrix — one system config on one dataset of
// a family — the same way for every runner: benchtest's cells (Family is
// the catalogue family's name, "repoqa"; Dataset the family's dataset,
// "python-docstring") and a campaign's (Family CampaignFamily, Dataset
// the repository). Sharding deals cells by it, -shard-costs finds a cell's
// recorded cost by it, cell files record it (resultfmt.Cell.Cell).
type Key struct {
	Family, System, Config, Dataset string
}

// CampaignFamily is the family of a campaign's cells: one per system
// config and repository of its case file.
const CampaignFamily = "campaign"

// String is "family/system/config/dataset".
func (k Key) String() string {
	return k.Family + "/" + k.System + "/" + k.Config + "/" + k.Dataset
}

// ParseKey reads what String writes. A dataset may hold "/" (a
// campaign's repository "org/name"); the other parts may not.
func ParseKey(s string) (Key, error) {
	p := strings.SplitN(s, "/", 4)
	if len(p) != 4 || p[0] == "" || p[1] == "" || p[2] == "" || p[3] == "" {
		return Key{}, fmt.Errorf("cell %q: want family/system/config/dataset", s)
	}
	return Key{p[0], p[1], p[2], p[3]}, nil
}

// SpecKey is the key of a system named "system/config" (systems.Spec.Name)
// on dataset of family.
func SpecKey(family, name, dataset string) Key {
	sys, conf, _ := strings.Cut(name, "/")
	return Key{Family: family, System: sys, Config: conf, Dataset: dataset}
}

// PartFile is the file of a campaign's output directory that records its
// plan and what each cell cost (package campaign writes it); ReadCosts
// reads its cells' times.
const PartFile = "part.json"

// Costs are what a previous run recorded its cells cost — their wall
// times, in seconds, by key — and the directories they were read from.
type Costs struct {
	Dirs    []string
	Seconds map[Key]float64
}

// ReadCosts reads the costs recorded in each directory: the cell files
// (*.cell.json) a `go test -results DIR` run writes, and the part.json of
// a campaign's output directory (a whole run's, a merged one's or a
// part's); a directory may hold either or both. No directory reads no
// costs. A directory that does not exist, or holds neither, is an error
// naming it: a mistyped -shard-costs would otherwise deal every cell
// round-robin, and shards given different costs run some cells twice and
// others never.
func ReadCosts(dirs ...string) (Costs, error) {
	c := Costs{Seconds: map[Key]float64{}}
	for _, dir := range dirs {
		if dir == "" {
			continue
		}
		c.Dirs = append(c.Dirs, dir)
		if err := c.read(dir); err != nil {
			return Costs{}, fmt.Errorf("%s: %w", dir, err)
		}
	}
	return c, nil
}

func (c Costs) read(dir string) error {
	st, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return errors.New("no such directory: want a previous run's results directory (go test -results DIR, or a campaign's -out)")
	}
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return errors.New("not a directory: want a previous run's results directory (go test -results DIR, or a campaign's -out)")
	}
	cells, err := resultfmt.ReadCells(dir)
	if err != nil {
		return err
	}
	found := len(cells)
	for _, cl := range cells {
		if cl.Cell == "" || cl.Seconds <= 0 {
			continue // written before either was recorded
		}
		k, err := ParseKey(cl.Cell)
		if err != nil {
			return fmt.Errorf("%s/%s: %w", dir, resultfmt.CellFileName(cl.Dataset, cl.Split, cl.System, cl.Config), err)
		}
		c.Seconds[k] += cl.Seconds
	}
	var part struct {
		Cells []struct {
			System, Repo string
			Seconds      float64
		} `json:"cells"`
	}
	// Only the cells' times of part.json (campaign.Part) are read: its
	// other fields are the campaign's.
	file := filepath.Join(dir, PartFile)
	b, err := os.ReadFile(file)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	default:
		if err := json.Unmarshal(b, &part); err != nil {
			return datafile.JSONError(file, b, err)
		}
		found++
		for _, pc := range part.Cells {
			if pc.Seconds > 0 {
				c.Seconds[SpecKey(CampaignFamily, pc.System, pc.Repo)] = pc.Seconds
			}
		}
	}
	if found == 0 {
		return fmt.Errorf("no cell files (*.cell.json, from go test -results) and no %s (a campaign's): not a previous run's results", PartFile)
	}
	return nil
}

// Cells are keys with their costs for shard.Deal: each key's recorded cost,
// else the mean of those recorded among keys, else 1 (so that, without a
// record, cells are dealt round-robin in key order). matched is how many
// keys have a recorded cost.
func (c Costs) Cells(keys []Key) (cells []shard.Cell, matched int) {
	names := make([]string, len(keys))
	rec := map[string]float64{}
	for i, k := range keys {
		names[i] = k.String()
		if v, ok := c.Seconds[k]; ok {
			rec[names[i]] = v
			matched++
		}
	}
	return shard.Costs(names, rec), matched
}

// NoneMatch is the error of costs read from some directory that record
// none of keys: the directory is another run's (other systems, other
// datasets, the other runner's) and every cell would be dealt
// round-robin. nil when costs were read from no directory, record some of
// keys, or keys is empty.
func (c Costs) NoneMatch(keys []Key) error {
	if len(c.Dirs) == 0 || len(keys) == 0 {
		return nil
	}
	if _, matched := c.Cells(keys); matched > 0 {
		return nil
	}
	var rec []string
	for k := range c.Seconds {
		rec = append(rec, k.String())
	}
	sort.Strings(rec)
	first := "none"
	if len(rec) > 0 {
		first = rec[0]
	}
	return fmt.Errorf("-shard-costs %s records the cost of %d cells, none of this run's %d (one recorded: %s; one of this run: %s): a different run's results?",
		strings.Join(c.Dirs, ","), len(rec), len(keys), first, keys[0])
}

// Dealt is the part (1-based) of a sharded run each cell is dealt to.
type Dealt map[Key]int

// Deal deals the cells keys to the len(loads) parts of a run, the one way
// every runner deals (benchtest's -shard, a campaign's): costliest first
// by c (Cells), each to the part with the least load so far, whose load it
// adds to (shard.Deal); loads carry over from earlier calls (benchtest's
// families). The result depends only on keys, their costs and loads. err
// is NoneMatch's: costs read from a directory that records none of keys,
// which are then dealt round-robin; the caller decides whether that fails
// the run.
func (c Costs) Deal(loads []float64, keys []Key) (d Dealt, err error) {
	cells, _ := c.Cells(keys)
	parts := shard.Deal(loads, cells)
	d = make(Dealt, len(keys))
	for _, k := range keys {
		d[k] = parts[k.String()]
	}
	return d, c.NoneMatch(keys)
}
