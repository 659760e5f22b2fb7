package resultfmt

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// ReadScoresOf reads the records of several results directories as one:
// the parts of a sharded run (benchtest -shard), each written by its own
// process. Files are read in the order of their names, across the
// directories, so the parts of a run give the records of the whole run in
// the same order as one directory holding every file. A file name in two
// directories is an error (a cell run by two shards), and so is a
// directory that is missing or holds no records (a part lost on the way:
// merging the others would give a smaller run that looks whole). One
// directory is ReadScores.
func ReadScoresOf(dirs []string) ([]Record, error) {
	if len(dirs) == 1 {
		return ReadScores(dirs[0])
	}
	if err := checkParts(dirs); err != nil {
		return nil, err
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
// sorted as ReadCells sorts them; a cell in two directories is an error,
// and so is a part that is missing or holds no records (as ReadScoresOf).
func ReadCellsOf(dirs []string) ([]Cell, error) {
	if len(dirs) > 1 {
		if err := checkParts(dirs); err != nil {
			return nil, err
		}
	}
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

// checkParts refuses a part of a sharded run that is missing, not a
// directory, or holds no *.jsonl records, naming it and its place.
func checkParts(dirs []string) error {
	for i, d := range dirs {
		where := fmt.Sprintf("part %d of %d in -results", i+1, len(dirs))
		if d == "" {
			return fmt.Errorf("%s is empty (a doubled or trailing comma?)", where)
		}
		st, err := os.Stat(d)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("%s: no such results directory (%s): a shard's results lost on the way? Give every part of the run, or rerun its shard", d, where)
		case err != nil:
			return fmt.Errorf("%s (%s): %w", d, where, err)
		case !st.IsDir():
			return fmt.Errorf("%s (%s) is not a directory", d, where)
		}
		files, err := filepath.Glob(filepath.Join(d, "*.jsonl"))
		if err != nil {
			return err
		}
		if len(files) == 0 {
			return fmt.Errorf("%s holds no records (no *.jsonl files; %s): its shard's results were lost or it ran no cell; rerun that shard, or leave the directory out if its shard had no cells", d, where)
		}
	}
	return nil
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
