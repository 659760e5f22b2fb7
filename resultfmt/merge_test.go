package resultfmt

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

func TestReadOfParts(t *testing.T) {
	whole, a, b := t.TempDir(), t.TempDir(), t.TempDir()
	cells := []Cell{
		{Dataset: "x", Split: "all", System: "bm25", Config: "porter", Cell: "f/bm25/porter/x", Seconds: 1},
		{Dataset: "x", Split: "all", System: "bm25", Config: "code"},
		{Dataset: "y", Split: "all", System: "dense", Config: "m"},
	}
	for i, c := range cells {
		part := a
		if i == 1 {
			part = b // the middle cell in the other part: the order must come from the names
		}
		recs := []Record{{Dataset: c.Dataset, Split: c.Split, System: c.System, Config: c.Config, Task: "t1"}, {Dataset: c.Dataset, Split: c.Split, System: c.System, Config: c.Config, Task: "t2"}}
		for _, dir := range []string{whole, part} {
			require.NoError(t, WriteRecords(filepath.Join(dir, RecordsFileName(c.Dataset, c.Split, c.System, c.Config)), recs))
			require.NoError(t, WriteCell(filepath.Join(dir, CellFileName(c.Dataset, c.Split, c.System, c.Config)), c))
		}
	}
	wantRecs, err := ReadScores(whole)
	require.NoError(t, err)
	gotRecs, err := ReadScoresOf([]string{a, b})
	require.NoError(t, err)
	if diff := cmp.Diff(wantRecs, gotRecs); diff != "" {
		t.Errorf("records of the parts differ from one directory's (-whole +parts):\n%s", diff)
	}
	wantCells, err := ReadCells(whole)
	require.NoError(t, err)
	gotCells, err := ReadCellsOf([]string{b, a})
	require.NoError(t, err)
	if diff := cmp.Diff(wantCells, gotCells); diff != "" {
		t.Errorf("cells of the parts differ from one directory's (-whole +parts):\n%s", diff)
	}
	_, err = ReadScoresOf([]string{a, whole})
	require.ErrorContains(t, err, "a cell in two parts of a sharded run")
	_, err = ReadCellsOf([]string{whole, b})
	require.ErrorContains(t, err, "a cell in two parts of a sharded run")
}

func TestCommonCommit(t *testing.T) {
	for _, tc := range []struct {
		name    string
		commits []string
		want    string
	}{
		{"none", nil, ""},
		{"unnamed", []string{"", ""}, ""},
		{"one", []string{"", "abc", "abc", ""}, "abc"},
		{"mixed", []string{"abc", "", "def"}, ""},
		{"mixed late", []string{"abc", "abc", "def", "abc"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var cells []Cell
			for _, c := range tc.commits {
				cells = append(cells, Cell{Commit: c})
			}
			if got := CommonCommit(cells); got != tc.want {
				t.Errorf("CommonCommit(%q) = %q, want %q", tc.commits, got, tc.want)
			}
		})
	}
}

// TestReadOfLostPart: a part of a sharded run that is missing or holds no
// records is an error naming it, never a leaderboard with fewer rows.
func TestReadOfLostPart(t *testing.T) {
	a, c := t.TempDir(), t.TempDir()
	for i, dir := range []string{a, c} {
		sys := []string{"bm25", "dense"}[i]
		recs := []Record{{Dataset: "x", Split: "all", System: sys, Config: "k", Task: "t1"}}
		require.NoError(t, WriteRecords(filepath.Join(dir, RecordsFileName("x", "all", sys, "k")), recs))
		require.NoError(t, WriteCell(filepath.Join(dir, CellFileName("x", "all", sys, "k")), Cell{Dataset: "x", Split: "all", System: sys, Config: "k"}))
	}
	missing := filepath.Join(t.TempDir(), "MISSING")
	empty := t.TempDir()
	for _, tc := range []struct {
		name, part, want string
	}{
		{"missing", missing, missing + ": no such results directory"},
		{"empty", empty, empty + " holds no records"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dirs := []string{a, tc.part, c}
			_, err := ReadScoresOf(dirs)
			require.ErrorContains(t, err, tc.want)
			require.ErrorContains(t, err, "part 2 of 3")
			_, err = ReadCellsOf(dirs)
			require.ErrorContains(t, err, tc.want)
		})
	}
}
