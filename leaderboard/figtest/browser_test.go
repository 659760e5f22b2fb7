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
	"github.com/retrievalbench/retrievalbench/leaderboard/boardtest"
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
	// The constructed board with an embedding model per dense row (the
	// models table) and RepoQA's languages (python, go, rust: the
	// language table): every table's rows and every figure must render.
	recs, cells := boardtest.ModelBoard()
	recs = append(recs, boardtest.Languages()...)
	b, err := leaderboard.Build(recs, cells, leaderboard.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Languages) != 1 || len(b.Models) != 2 {
		t.Fatalf("fixture: %d language tables, %d models; want 1 and 2", len(b.Languages), len(b.Models))
	}
	dir := t.TempDir()
	if err := leaderboard.Write(dir, b, plots.Write); err != nil {
		t.Fatal(err)
	}
	page := "file://" + filepath.ToSlash(filepath.Join(dir, "index.html"))
	dom := string(chromium(t, bin, "--dump-dom", page))

	// Tables: the datasets index, the language table, the models table,
	// one per dataset; rows: one per dataset, language row, model and
	// dataset row; four figures per dataset (score figures of ndcg@10 and
	// hit@1, timing, pareto).
	tables := 1 + len(b.Languages) + 1 + len(b.Datasets)
	rows := len(b.Datasets) + len(b.Languages[0].Rows) + len(b.Models)
	images := 0
	for _, d := range b.Datasets {
		rows += len(d.Rows)
		images += len(d.PlotFiles())
	}
	if images != 4*len(b.Datasets) {
		t.Fatalf("%d figures for %d datasets, want 4 each", images, len(b.Datasets))
	}
	want := map[string]string{"done": "1", "tables": strconv.Itoa(tables), "rows": strconv.Itoa(rows), "images": strconv.Itoa(images), "images-loaded": strconv.Itoa(images)}
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
	if len(imgs) != images {
		t.Errorf("%d <img> in the DOM, want %d", len(imgs), images)
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
	for key, models := range map[string][]string{"alpha.small": {"bm25/code", "bm25/porter", "dense/small", "dense/served"},
		"beta.all": {"bm25/code"}, "repoqa-doc.small": {"bm25/a", "dense/b", "dense/c"}, "models": {"served", "small"}} {
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
