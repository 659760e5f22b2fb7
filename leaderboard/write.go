package leaderboard

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/retrievalbench/retrievalbench/internal/atomicfile"
	"github.com/retrievalbench/retrievalbench/report"
)

// Draw draws the figures of a dataset's summary into dir, each as .svg and
// .png (report/plots.Write). Write takes it as an argument so that this
// package links no plotting library: a command that draws no figures
// (cmd/rbench) brings none into its users' go.sum.
type Draw func(dir string, s *report.Summary) error

// Write writes the leaderboard into dir: index.md, index.html,
// leaderboard.json, and per dataset KEY/index.md with its figures, drawn by
// draw, under KEY/plots (each .svg and .png). With draw nil the pages have
// no figures and say so. Every file is written atomically.
func Write(dir string, b *Board, draw Draw) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	figs := Figures{}
	for _, d := range b.Datasets {
		d.undrawn = draw == nil
		ddir := filepath.Join(dir, d.Key)
		if err := os.MkdirAll(ddir, 0o755); err != nil {
			return err
		}
		if pf := d.PlotFiles(); len(pf) > 0 {
			pdir := filepath.Join(ddir, "plots")
			if err := draw(pdir, d.summary); err != nil {
				return fmt.Errorf("leaderboard %s: %w", d.Key, err)
			}
			figs[d.Key] = map[string][]byte{}
			for _, f := range pf {
				svg, err := os.ReadFile(filepath.Join(pdir, f+".svg"))
				if err != nil {
					return err
				}
				figs[d.Key][f] = svg
			}
		}
		if err := atomicfile.WriteFile(filepath.Join(ddir, "index.md"), []byte(b.DatasetMarkdown(d))); err != nil {
			return err
		}
	}
	js, err := atomicfile.MarshalJSON(b)
	if err != nil {
		return err
	}
	outs := []struct {
		name string
		data []byte
	}{
		{"leaderboard.json", js},
		{"index.md", []byte(b.Markdown())},
		{"index.html", b.HTML(figs)},
	}
	for _, o := range outs {
		if err := atomicfile.WriteFile(filepath.Join(dir, o.name), o.data); err != nil {
			return err
		}
	}
	return nil
}
