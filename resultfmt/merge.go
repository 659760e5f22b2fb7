package resultfmt

import (
	"fmt"
	"path/filepath"
	"sort"
)

// ReadScoresOf reads the records of several results directories as one:
// the parts of a sharded run (benchtest -shard), each written by its own
// process. Files are read in the order of their names, across the
// directories, so the parts of a run give the records of the whole run in
// the same order as one directory holding every file. A file name in two
// directories is an error (a cell run by two shards). One directory is
// ReadScores.
func ReadScoresOf(dirs []string) ([]Record, error) {
	if len(dirs) == 1 {
		return ReadScores(dirs[0])
	}
	files, err := mergedFiles(dirs, "*.jsonl")
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%v: no *.jsonl result files", dirs)
	}
	var recs []Record
	for _, f := range files {
		rs, err := readRecordFile(f, false)
		if err != nil {
			return nil, err
		}
		recs = append(recs, rs...)
	}
	return recs, nil
}

// ReadCellsOf reads the cell files of several results directories as one,
// sorted as ReadCells sorts them; a cell in two directories is an error.
func ReadCellsOf(dirs []string) ([]Cell, error) {
	if _, err := mergedFiles(dirs, "*.cell.json"); err != nil {
		return nil, err
	}
	var cells []Cell
	for _, d := range dirs {
		cs, err := ReadCells(d)
		if err != nil {
			return nil, err
		}
		cells = append(cells, cs...)
	}
	sort.Slice(cells, func(i, j int) bool { return cellKey(cells[i]) < cellKey(cells[j]) })
	return cells, nil
}

// mergedFiles lists the files matching pattern in every dir, sorted by
// name, refusing a name found in two of them.
func mergedFiles(dirs []string, pattern string) ([]string, error) {
	where := map[string]string{}
	var names []string
	for _, d := range dirs {
		files, err := filepath.Glob(filepath.Join(d, pattern))
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			name := filepath.Base(f)
			if other, ok := where[name]; ok {
				return nil, fmt.Errorf("%s is in both %s and %s: a cell in two parts of a sharded run", name, filepath.Dir(other), d)
			}
			where[name] = f
			names = append(names, name)
		}
	}
	sort.Strings(names)
	files := make([]string, len(names))
	for i, n := range names {
		files[i] = where[n]
	}
	return files, nil
}

// CommonCommit is the commit every cell that names one names, or "" when
// they disagree or none names one: results of mixed commits are not "of"
// any one of them.
func CommonCommit(cells []Cell) string {
	commit := ""
	for _, c := range cells {
		switch {
		case c.Commit == "":
		case commit == "":
			commit = c.Commit
		case commit != c.Commit:
			return ""
		}
	}
	return commit
}
