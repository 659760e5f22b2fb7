package testenv

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// trec_eval, the TREC evaluation tool, is built from its C source (the
// usnistgov/trec_eval release 10.0, shipped beside the data pack because no
// package registry reachable from these machines carries it) into the
// cache, never inside the source folder, which is shared.
const (
	// EnvTrecEvalSrc names the folder of trec_eval's C source (its
	// Makefile and trec_eval.c). Default: "trec_eval/src" next to the
	// datasets data pack (shared/datasets, shared/trec_eval/src).
	EnvTrecEvalSrc = "RETRIEVALBENCH_TREC_EVAL_SRC"
	// TrecEvalVersion is the release the source must be: the built
	// binary's "-v" line must read "trec_eval version 10.0" (its Makefile
	// names it 10.0-rc3).
	TrecEvalVersion = "10.0"
)

// A TrecEvalBuild is one way of compiling trec_eval.
type TrecEvalBuild struct {
	// Name is the binary's file name in the cache.
	Name string
	// CC, when set, is make's C compiler command: trec_eval's Makefile
	// compiles with "$(CC) $(CFLAGS)", so "gcc -O2" adds -O2 before its
	// own flags and keeps them.
	CC string
	// What says how it is built, for reports.
	What string
}

var (
	// TrecEvalDefault is trec_eval as its own Makefile builds it: gcc -g
	// -I. -Wall (and three -Wno- flags), no optimisation.
	TrecEvalDefault = TrecEvalBuild{Name: "trec_eval", What: "its Makefile's flags: gcc -g -Wall, no -O"}
	// TrecEvalO2 adds -O2 to the Makefile's flags.
	TrecEvalO2 = TrecEvalBuild{Name: "trec_eval-O2", CC: "gcc -O2", What: "its Makefile's flags plus -O2"}
)

// TrecEvalSource returns the trec_eval source folder ($RETRIEVALBENCH_TREC_EVAL_SRC,
// else trec_eval/src next to the data pack) and whether it holds trec_eval.c.
func TrecEvalSource() (string, bool) {
	dir := os.Getenv(EnvTrecEvalSrc)
	if dir == "" {
		data, _ := DataDir()
		dir = filepath.Join(filepath.Dir(filepath.Clean(data)), "trec_eval", "src")
	}
	_, err := os.Stat(filepath.Join(dir, "trec_eval.c"))
	return dir, err == nil
}

// TrecEvalPath is where b's binary is built: the cache's
// perf/trec_eval/10.0/ folder.
func TrecEvalPath(b TrecEvalBuild) string {
	return filepath.Join(CacheDir(), "perf", "trec_eval", TrecEvalVersion, b.Name)
}

// BuildTrecEval builds b from the source folder src into TrecEvalPath(b),
// unless the binary there was built from the same source files the same
// way (a stamp beside it holds the source's sha256 and the compiler
// command). The source is copied into a temporary folder next to the
// binary and built there with make; the binary must print trec_eval's
// version line for TrecEvalVersion, and is then renamed into place.
// It returns the binary's path.
func BuildTrecEval(src string, b TrecEvalBuild, log io.Writer) (string, error) {
	dst := TrecEvalPath(b)
	sum, err := sourceSHA256(src)
	if err != nil {
		return "", fmt.Errorf("trec_eval source: %w", err)
	}
	stamp := "source sha256 " + sum + "\nCC " + b.CC + "\n"
	if old, err := os.ReadFile(dst + ".stamp"); err == nil && string(old) == stamp {
		if _, err := os.Stat(dst); err == nil {
			return dst, nil
		}
	}
	for _, tool := range []string{"make", "gcc"} {
		if _, err := exec.LookPath(tool); err != nil {
			return "", fmt.Errorf("building trec_eval needs %s: %w", tool, err)
		}
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dst), "build-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	if err := copyFlat(src, tmp); err != nil {
		return "", err
	}
	args := []string{"-C", tmp, "trec_eval"}
	if b.CC != "" {
		args = append(args, "CC="+b.CC)
	}
	fmt.Fprintf(log, "testenv: building trec_eval from %s: make %s\n", src, strings.Join(args, " "))
	cmd := exec.Command("make", args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("make %s: %w\n%s", strings.Join(args, " "), err, out.String())
	}
	bin := filepath.Join(tmp, "trec_eval")
	if err := CheckTrecEvalVersion(bin); err != nil {
		return "", err
	}
	if err := os.Rename(bin, dst); err != nil {
		return "", err
	}
	if err := os.WriteFile(dst+".stamp.tmp", []byte(stamp), 0o644); err != nil {
		return "", err
	}
	return dst, os.Rename(dst+".stamp.tmp", dst+".stamp")
}

// CheckTrecEvalVersion runs bin -v and checks that it prints
// "trec_eval version 10.0" (or 10.0-something: the Makefile's 10.0-rc3).
func CheckTrecEvalVersion(bin string) error {
	out, err := exec.Command(bin, "-v").CombinedOutput()
	line := strings.TrimSpace(string(out))
	v, ok := strings.CutPrefix(line, "trec_eval version ")
	if err != nil || !ok || (v != TrecEvalVersion && !strings.HasPrefix(v, TrecEvalVersion+"-")) {
		return fmt.Errorf("%s -v: %q (%v), want trec_eval version %s", bin, line, err, TrecEvalVersion)
	}
	return nil
}

// sourceSHA256 hashes the names and contents of the regular files of dir
// (not its subfolders), in name order.
func sourceSHA256(dir string) (string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	var names []string
	for _, e := range ents {
		if e.Type().IsRegular() {
			names = append(names, e.Name())
		}
	}
	if !slices.Contains(names, "trec_eval.c") || !slices.Contains(names, "Makefile") {
		return "", fmt.Errorf("%s: no trec_eval.c and Makefile", dir)
	}
	slices.Sort(names)
	h := sha256.New()
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s %d\n", n, len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// copyFlat copies the regular files of src (not its subfolders) into dst.
func copyFlat(src, dst string) error {
	ents, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// TrecEvalBinary returns the trec_eval 10.0 binary of build b for a test:
// built into the cache from the source (TrecEvalSource) when gcc, make and
// the source are there (or already built from it), else it stops t (see
// Missing).
func TrecEvalBinary(t testing.TB, b TrecEvalBuild) string {
	t.Helper()
	src, ok := TrecEvalSource()
	if !ok {
		// A binary built earlier (make trec-eval) still serves when the
		// source has gone, if it is 10.0.
		if bin := TrecEvalPath(b); CheckTrecEvalVersion(bin) == nil {
			return bin
		}
		Missing(t, TrecEval, "no trec_eval source at "+src+" (set "+EnvTrecEvalSrc+" or put it next to the data pack) and no trec_eval "+TrecEvalVersion+" at "+TrecEvalPath(b))
		return ""
	}
	for _, tool := range []string{"make", "gcc"} {
		if _, err := exec.LookPath(tool); err != nil {
			Missing(t, TrecEval, "building trec_eval from "+src+" needs "+tool)
			return ""
		}
	}
	bin, err := BuildTrecEval(src, b, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	return bin
}
