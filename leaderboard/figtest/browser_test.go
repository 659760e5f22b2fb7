package figtest

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/retrievalbench/retrievalbench/internal/testenv"
	"github.com/retrievalbench/retrievalbench/leaderboard"
	"github.com/retrievalbench/retrievalbench/report/plots"
)

// chromium runs a headless chromium with args and returns its stdout. It
// dies with the test's context: the whole process group is killed.
func chromium(t *testing.T, bin string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	home := t.TempDir() // profile, crash dumps and caches stay out of $HOME
	args = append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
		"--user-data-dir=" + filepath.Join(home, "profile"), "--virtual-time-budget=10000"}, args...)
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), "HOME="+home)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\nstderr:\n%s", bin, strings.Join(args, " "), err, tail(errb.String(), 2000))
	}
	return out.Bytes()
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

var (
	renderCheck = regexp.MustCompile(`<div id="render-check"[^>]*>`)
	attr        = regexp.MustCompile(`data-([a-z-]+)="([^"]*)"`)
	imgTag      = regexp.MustCompile(`<img [^>]*>`)
	section     = regexp.MustCompile(`(?s)<section id="([^"]+)"[^>]*>(.*?)</section>`)
)

// TestHTMLInChromium loads index.html of a constructed leaderboard in a
// real headless chromium and checks from the DOM it dumps that every table
// has its rows and every figure decoded; a screenshot is kept.
func TestHTMLInChromium(t *testing.T) {
	bin := testenv.MustHaveChromium(t)
	recs, cells := fixtureBoard()
	b, err := leaderboard.Build(recs, cells, leaderboard.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := leaderboard.Write(dir, b, plots.Write); err != nil {
		t.Fatal(err)
	}
	page := "file://" + filepath.ToSlash(filepath.Join(dir, "index.html"))
	dom := string(chromium(t, bin, "--dump-dom", page))

	// The constructed board: datasets alpha (3 systems) and beta (1), four
	// figures each (score figures of ndcg@10 and hit@1, timing, pareto).
	want := map[string]string{"done": "1", "tables": "3", "rows": strconv.Itoa(2 + 3 + 1), "images": "8", "images-loaded": "8"}
	m := renderCheck.FindString(dom)
	if m == "" {
		t.Fatalf("no render check in the dumped DOM (the page's script did not run?):\n%s", tail(dom, 3000))
	}
	got := map[string]string{}
	for _, a := range attr.FindAllStringSubmatch(m, -1) {
		got[a[1]] = a[2]
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("render check %s = %q, want %q (%s)", k, got[k], v, m)
		}
	}
	imgs := imgTag.FindAllString(dom, -1)
	if len(imgs) != 8 {
		t.Errorf("%d <img> in the DOM, want 8", len(imgs))
	}
	for _, im := range imgs {
		w := attr.FindAllStringSubmatch(im, -1)
		ok := false
		for _, a := range w {
			if a[1] == "natural-width" {
				n, _ := strconv.Atoi(a[2])
				ok = n > 0
			}
		}
		if !ok {
			alt := regexp.MustCompile(`alt="([^"]*)"`).FindStringSubmatch(im)
			t.Errorf("figure %v did not decode (no positive naturalWidth)", alt)
		}
	}
	sections := map[string]string{}
	for _, s := range section.FindAllStringSubmatch(dom, -1) {
		sections[s[1]] = s[2]
	}
	for key, models := range map[string][]string{"alpha.small": {"bm25/code", "bm25/porter", "dense/small"}, "beta.all": {"bm25/code"}} {
		body, ok := sections[key]
		if !ok {
			t.Errorf("no section %s in the DOM", key)
			continue
		}
		if n := strings.Count(body, "<tr"); n != 1+len(models) {
			t.Errorf("section %s: %d table rows, want header + %d", key, n, len(models))
		}
		for _, mo := range models {
			if !strings.Contains(body, "<td>"+mo+"</td>") {
				t.Errorf("section %s lacks a row for %s", key, mo)
			}
		}
	}

	shot := filepath.Join(t.ArtifactDir(), "leaderboard.png")
	chromium(t, bin, "--screenshot="+shot, "--window-size=1400,2400", "--hide-scrollbars", page)
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	defer f.Close()
	cfg, err := png.DecodeConfig(f)
	if err != nil || cfg.Width != 1400 {
		t.Errorf("screenshot %s: %dx%d, %v; want a 1400-pixel-wide PNG", shot, cfg.Width, cfg.Height, err)
	}
	t.Logf("screenshot: %s (kept with go test -artifacts)", shot)
}
