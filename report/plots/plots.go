// Package plots draws the figures of a report.Summary with gonum/plot:
// score bars with 95% CIs, query-latency bars and the quality-vs-latency
// Pareto front, each as SVG and PNG. It is a package of its own so that
// what imports report (the bench test binary) does not link plotting.
package plots

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/retrievalbench/retrievalbench/report"
)

// OkabeIto is the colour-blind-safe palette of Okabe and Ito (2008),
// black last.
var OkabeIto = []color.Color{
	color.RGBA{0xE6, 0x9F, 0x00, 0xFF}, // orange
	color.RGBA{0x56, 0xB4, 0xE9, 0xFF}, // sky blue
	color.RGBA{0x00, 0x9E, 0x73, 0xFF}, // bluish green
	color.RGBA{0x00, 0x72, 0xB2, 0xFF}, // blue
	color.RGBA{0xD5, 0x5E, 0x00, 0xFF}, // vermillion
	color.RGBA{0xCC, 0x79, 0xA7, 0xFF}, // reddish purple
	color.RGBA{0xF0, 0xE4, 0x42, 0xFF}, // yellow
	color.RGBA{0x00, 0x00, 0x00, 0xFF}, // black
}

// Write draws, into dir, score bars with 95% CIs per system for each measure
// of the gain rules, timing bars (p50 with a whisker to p95) and a quality-vs-latency
// scatter with the Pareto front, each as SVG and PNG. Systems of
// different datasets in one summary are refused.
func Write(dir string, s *report.Summary) error {
	var live []report.SystemSummary
	for _, ss := range s.Systems {
		if ss.Dataset != s.Meta.Dataset {
			return fmt.Errorf("plot: system %s is of dataset %q, the figure of %q: results of different datasets are never drawn together", ss.Name, ss.Dataset, s.Meta.Dataset)
		}
		if ss.Status != report.StatusFailed {
			live = append(live, ss)
		}
	}
	if len(live) == 0 {
		return fmt.Errorf("plot: no system with results")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	colour := map[string]color.Color{}
	for i, name := range s.Order() {
		colour[name] = OkabeIto[i%len(OkabeIto)]
	}
	names := make([]string, len(live))
	for i, ss := range live {
		names[i] = ss.Name
	}
	for _, m := range s.PlotMeasures() {
		p := plot.New()
		p.Title.Text = fmt.Sprintf("%s — %s (micro mean, 95%% CI, %d cases)", s.Meta.Dataset, m, s.Cases)
		p.Y.Label.Text = m
		p.Y.Min, p.Y.Max = 0, 1
		for i, ss := range live {
			st := ss.Micro[m]
			if err := addBar(p, float64(i), float64(st.Mean), float64(st.Mean-st.Low), float64(st.High-st.Mean), colour[ss.Name]); err != nil {
				return err
			}
		}
		p.NominalX(names...)
		if err := save(p, dir, report.ScoreFigure(m), len(live)); err != nil {
			return err
		}
	}

	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s — query latency (bar p50, whisker p95)", s.Meta.Dataset)
	p.Y.Label.Text = "ms"
	p.Y.Min = 0
	for i, ss := range live {
		if err := addBar(p, float64(i), float64(ss.LatencyP50MS), 0, float64(ss.LatencyP95MS-ss.LatencyP50MS), colour[ss.Name]); err != nil {
			return err
		}
	}
	p.NominalX(names...)
	if err := save(p, dir, "timing", len(live)); err != nil {
		return err
	}
	return pareto(dir, s, live, colour)
}

// addBar adds one bar of height y at x with an error bar from y−lo to
// y+hi.
func addBar(p *plot.Plot, x, y, lo, hi float64, c color.Color) error {
	bar, err := plotter.NewBarChart(plotter.Values{y}, vg.Points(28))
	if err != nil {
		return err
	}
	bar.XMin = x
	bar.Color = c
	bar.LineStyle.Width = vg.Points(0.5)
	eb, err := plotter.NewYErrorBars(struct {
		plotter.XYs
		plotter.YErrors
	}{plotter.XYs{{X: x, Y: y}}, plotter.YErrors{{Low: lo, High: hi}}})
	if err != nil {
		return err
	}
	eb.LineStyle.Width = vg.Points(1.2)
	p.Add(bar, eb)
	return nil
}

func save(p *plot.Plot, dir, base string, n int) error {
	w := vg.Length(math.Max(4, 1.6*float64(n)+1.5)) * vg.Inch
	for _, ext := range []string{".svg", ".png"} {
		file := filepath.Join(dir, base+ext)
		tmp := file + ".tmp" + ext
		if err := p.Save(w, 4*vg.Inch, tmp); err != nil {
			os.Remove(tmp)
			return fmt.Errorf("plot %s: %w", file, err)
		}
		if err := os.Rename(tmp, file); err != nil {
			return err
		}
	}
	return nil
}

// pareto draws primary quality against p50 latency; the line joins the
// systems no other system beats on both.
func pareto(dir string, s *report.Summary, live []report.SystemSummary, colour map[string]color.Color) error {
	prim := s.Primary()
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s — %s vs query latency (Pareto front)", s.Meta.Dataset, prim)
	p.X.Label.Text = "query latency p50 (ms)"
	p.Y.Label.Text = prim
	p.Y.Min, p.Y.Max = 0, 1
	shapes := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.PyramidGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{}, draw.RingGlyph{}, draw.BoxGlyph{}}
	var pts plotter.XYs
	for i, ss := range live {
		xy := plotter.XY{X: float64(ss.LatencyP50MS), Y: float64(ss.Micro[prim].Mean)}
		pts = append(pts, xy)
		sc, err := plotter.NewScatter(plotter.XYs{xy})
		if err != nil {
			return err
		}
		sc.GlyphStyle.Color = colour[ss.Name]
		sc.GlyphStyle.Radius = vg.Points(5)
		sc.GlyphStyle.Shape = shapes[i%len(shapes)]
		p.Add(sc)
		p.Legend.Add(ss.Name, sc)
	}
	maxX := 0.0
	for _, xy := range pts {
		maxX = max(maxX, xy.X)
	}
	p.X.Min, p.X.Max = 0, maxX*1.15+0.1
	var front plotter.XYs
	for i, a := range pts {
		dominated := false
		for j, b := range pts {
			if i != j && b.X <= a.X && b.Y >= a.Y && (b.X < a.X || b.Y > a.Y) {
				dominated = true
			}
		}
		if !dominated {
			front = append(front, a)
		}
	}
	sort.Slice(front, func(i, j int) bool { return front[i].X < front[j].X })
	if len(front) > 1 {
		l, err := plotter.NewLine(front)
		if err != nil {
			return err
		}
		l.LineStyle.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(l)
	}
	p.Legend.Top = false
	p.Legend.Left = false
	return save(p, dir, "pareto", 3)
}
