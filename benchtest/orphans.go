package benchtest

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	"github.com/retrievalbench/retrievalbench/internal/atomicfile"
	"github.com/retrievalbench/retrievalbench/systems"
)

// Orphans lists the golden files under dir that nothing in this run stands
// behind: a file of a system config the suite does not have (renamed or
// removed), a file of a dataset and split that cells of this binary ran
// while none of them read it, or the temporary file of a golden write that
// was killed before its rename. Call it after a whole-suite run (no -run
// filter): a partial run reads only some files.
func Orphans(dir string, specs []systems.Spec) ([]string, error) {
	known := map[string]bool{}
	for _, s := range specs {
		known[s.Name()] = true
	}
	read.Lock()
	ran := map[string]bool{} // dataset/split directories a cell read from
	for p := range read.m {
		ran[splitDir(p)] = true
	}
	seen := make(map[string]bool, len(read.m))
	for p := range read.m {
		seen[p] = true
	}
	read.Unlock()
	var out []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && atomicfile.IsLeftover(d.Name()) {
			out = append(out, fmt.Sprintf("%s: left by an interrupted golden write (the file beside it is the old one, whole): delete it, or run -update again", path))
			return nil
		}
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".json") {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		parts := strings.Split(filepath.ToSlash(rel), "/")
		if len(parts) != 4 {
			out = append(out, fmt.Sprintf("%s: not at <dataset>/<split>/<system>/<config>.json", path))
			return nil
		}
		name := parts[2] + "/" + strings.TrimSuffix(parts[3], ".json")
		switch p := filepath.Clean(path); {
		case !known[name]:
			out = append(out, fmt.Sprintf("%s: no system config %s in the suite", path, name))
		case ran[splitDir(p)] && !seen[p]:
			out = append(out, fmt.Sprintf("%s: no cell of %s/%s read it", path, parts[0], parts[1]))
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

// splitDir is the <dataset>/<split> directory of a golden file at
// <dataset>/<split>/<system>/<config>.json: a run at one size reads one
// split, and the files of the other splits are not its to judge.
func splitDir(path string) string { return filepath.Dir(filepath.Dir(path)) }
