package main

import (
	"archive/zip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	"github.com/retrievalbench/retrievalbench/internal/atomicfile"
	"github.com/retrievalbench/retrievalbench/internal/testenv"
)

// The trec_eval peer. trec_eval's C source is not to be had from a
// package registry: the sdists of pytrec_eval (0.5), pytrec-eval-git (0.5)
// and pytrec-eval-terrier (0.5.1 to 0.5.11) fetch it from its repository
// at build time, and Debian has no trec-eval package. The Maven artifact
// jtreceval (Terrier's wrapper) ships trec_eval binaries inside its jar:
// the Linux x86-64 one is trec_eval 9.0.4 as built by its Makefile (gcc
// -g, no -O). The jar is pinned by version and sha256.
const (
	jtrecevalArtifact = "uk.ac.gla.dcs.terrierteam:jtreceval:0.0.5"
	jtrecevalJar      = "uk/ac/gla/dcs/terrierteam/jtreceval/0.0.5/jtreceval-0.0.5.jar"
	jtrecevalSHA256   = "76ee01253a2f6a161d01cff955f3c4c96fb15d8b0cb6545509668f80bf42c608"
	trecEvalMember    = "trec_eval-linux-amd64"
	trecEvalSHA256    = "a282ee9c22966f306c4bcbbfda9142ff22f371012a2994782194e6afdadbe6e4"
	trecEvalVersion   = "9.0.4"
)

// ensureTrecEval installs the trec_eval binary at testenv.TrecEvalPath
// (once): the jar through Maven (mvn dependency:get into the local
// repository), checked against its sha256, and the binary taken out of it.
func (e *env) ensureTrecEval() error {
	e.trecEval = testenv.TrecEvalPath()
	if sum, err := fileSHA256(e.trecEval); err == nil && sum == trecEvalSHA256 {
		return nil
	}
	// dependency:copy puts the jar where we say: the local repository is
	// where Maven's user.home says (the passwd entry's home), which need
	// not be $HOME.
	tmp, err := os.MkdirTemp("", "perfrun-jtreceval-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	jar := filepath.Join(tmp, path.Base(jtrecevalJar))
	fmt.Fprintln(os.Stderr, "perfrun: fetching", jtrecevalArtifact, "with mvn")
	if err := runLoud("mvn", "-q", "-B", "dependency:copy", "-Dartifact="+jtrecevalArtifact, "-DoutputDirectory="+tmp); err != nil {
		return fmt.Errorf("trec_eval: %w (needs Maven: apt-get install maven)", err)
	}
	if sum, err := fileSHA256(jar); err != nil {
		return err
	} else if sum != jtrecevalSHA256 {
		return fmt.Errorf("%s: sha256 %s, want %s", jar, sum, jtrecevalSHA256)
	}
	zr, err := zip.OpenReader(jar)
	if err != nil {
		return err
	}
	defer zr.Close()
	f, err := zr.Open(trecEvalMember)
	if err != nil {
		return fmt.Errorf("%s: %w", jar, err)
	}
	defer f.Close()
	h := sha256.New()
	if err := os.MkdirAll(filepath.Dir(e.trecEval), 0o755); err != nil {
		return err
	}
	if err := atomicfile.Write(e.trecEval, func(w io.Writer) error {
		_, err := io.Copy(io.MultiWriter(w, h), f)
		return err
	}); err != nil {
		return err
	}
	if sum := hex.EncodeToString(h.Sum(nil)); sum != trecEvalSHA256 {
		os.Remove(e.trecEval)
		return fmt.Errorf("%s in %s: sha256 %s, want %s", trecEvalMember, jar, sum, trecEvalSHA256)
	}
	if err := os.Chmod(e.trecEval, 0o755); err != nil {
		return err
	}
	out, err := exec.Command(e.trecEval, "-v").CombinedOutput()
	if !strings.Contains(string(out), "trec_eval version "+trecEvalVersion) {
		return fmt.Errorf("%s -v: %q (%v), want version %s", e.trecEval, out, err, trecEvalVersion)
	}
	return nil
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
