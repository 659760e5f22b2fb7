package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestFileRun: chunks become their files, each file keeps its best line,
// ranks are renumbered per query; a doc missing from docs.jsonl and a
// malformed line are errors naming the run's line.
func TestFileRun(t *testing.T) {
	dir := t.TempDir()
	docs := writeFile(t, dir, "docs.jsonl", `{"id":"a.py#1","path":"a.py","text":"x"}
{"id":"a.py#2","path":"a.py","text":"y"}
{"id":"b.py#1","path":"b.py","text":"z"}
`)
	toFile, err := docPaths(docs)
	if err != nil {
		t.Fatal(err)
	}
	run := writeFile(t, dir, "r.run", `q1 Q0 a.py#2 1 9.5 x
q1 Q0 b.py#1 2 8 x
q1 Q0 a.py#1 3 7 x
q2 Q0 a.py#1 1 3 x
`)
	out := filepath.Join(dir, "r.files.run")
	if err := fileRun(run, out, toFile); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want := "q1 Q0 a.py 1 9.5 x\nq1 Q0 b.py 2 8 x\nq2 Q0 a.py 1 3 x\n"
	if string(got) != want {
		t.Fatalf("file run:\n%s\nwant:\n%s", got, want)
	}
	for name, text := range map[string]string{
		"unknown doc": "q1 Q0 a.py#1 1 1 x\nq1 Q0 c.py#1 2 1 x\n",
		"short line":  "q1 Q0 a.py#1 1 1\n",
	} {
		bad := writeFile(t, dir, "bad.run", text)
		err := fileRun(bad, out, toFile)
		if err == nil || !strings.Contains(err.Error(), "bad.run:") {
			t.Errorf("%s: error %v, want one naming bad.run and its line", name, err)
		}
	}
	noPath := writeFile(t, dir, "nopath.jsonl", `{"id":"d1","text":"x"}`+"\n")
	if _, err := docPaths(noPath); err == nil || !strings.Contains(err.Error(), "nopath.jsonl:1") {
		t.Errorf("a doc without a path: error %v, want nopath.jsonl:1", err)
	}
}

// TestTopOverlap: the share of ours' top k in the peer's top k, averaged
// over ours' queries (a query the peer lacks counts 0).
func TestTopOverlap(t *testing.T) {
	dir := t.TempDir()
	ours := writeFile(t, dir, "ours.run", `q1 Q0 a 1 3 o
q1 Q0 b 2 2 o
q1 Q0 c 3 1 o
q1 Q0 d 4 0.5 o
q2 Q0 a 1 1 o
q3 Q0 z 1 1 o
`)
	peer := writeFile(t, dir, "peer.run", `q1 Q0 b 1 5 p
q1 Q0 a 2 4 p
q1 Q0 x 3 3 p
q1 Q0 c 4 2 p
q2 Q0 a 1 1 p
`)
	// k=3: q1 shares {a, b} of {a, b, c} (c is 4th for the peer): 2/3;
	// q2 1; q3 0.
	got, err := topOverlap(ours, peer, 3)
	if err != nil {
		t.Fatal(err)
	}
	if want := (2.0/3 + 1 + 0) / 3; math.Abs(got-want) > 1e-12 {
		t.Fatalf("overlap at 3 = %v, want %v", got, want)
	}
	// k=4: q1 shares {a, b, c} of 4.
	got, err = topOverlap(ours, peer, 4)
	if err != nil {
		t.Fatal(err)
	}
	if want := (3.0/4 + 1 + 0) / 3; math.Abs(got-want) > 1e-12 {
		t.Fatalf("overlap at 4 = %v, want %v", got, want)
	}
}
