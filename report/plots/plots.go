// Package plots draws the figures of a report.Summary with gonum/plot:
// score dot plots with 95% CIs, query-latency dot plots and the
// quality-vs-latency Pareto front, each as SVG and PNG. It is a package of its own so that
// what imports report (the bench test binary) does not link plotting.
package plots

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	_ "gonum.org/v1/plot/vg/vgimg" // png
	_ "gonum.org/v1/plot/vg/vgsvg" // svg

	"github.com/retrievalbench/retrievalbench/campaignfmt"
	"github.com/retrievalbench/retrievalbench/internal/atomicfile"
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

// Write draws, into dir, for each measure of the gain rules a dot plot of
// every system's mean with its 95% CI, a query-latency dot plot (p50, a bar
// to p95, log scale) and a quality-vs-latency scatter with the Pareto
// front, each as SVG and PNG. The systems are rows in ranking order, best
// on top, so that a row is the same system in every figure, and a system's
// colour is its family's (bm25, dense, a peer). Systems of different
// datasets in one summary are refused.
func Write(dir string, s *report.Summary) error {
	var live []report.SystemSummary
	for _, ss := range s.Systems {
		if ss.Dataset != s.Meta.Dataset {
			return fmt.Errorf("plot: system %s is of dataset %q, the figure of %q: results of different datasets are never drawn together", ss.Name, ss.Dataset, s.Meta.Dataset)
		}
		if ss.Status != campaignfmt.StatusFailed {
			live = append(live, ss)
		}
	}
	if len(live) == 0 {
		return fmt.Errorf("plot: no system with results")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	st := styles(s.Order())
	for _, m := range s.PlotMeasures() {
		p := rows(live)
		p.Title.Text = fmt.Sprintf("%s — %s (micro mean, 95%% CI, %d cases)", s.Meta.Dataset, m, s.Cases)
		p.X.Label.Text = m
		p.X.Min, p.X.Max = 0, 1
		for i, ss := range live {
			stat := ss.Micro[m]
			if err := addDot(p, row(i, len(live)), float64(stat.Mean), float64(stat.Mean-stat.Low), float64(stat.High-stat.Mean), st[ss.Name]); err != nil {
				return err
			}
		}
		if err := save(dir, report.ScoreFigure(m), rowsSize(len(live)), p.Draw); err != nil {
			return err
		}
	}

	p := rows(live)
	p.Title.Text = fmt.Sprintf("%s — query latency (dot p50, bar to p95)", s.Meta.Dataset)
	p.X.Label.Text = "ms (log scale)"
	logX(p, live, func(ss report.SystemSummary) []float64 {
		return []float64{float64(ss.LatencyP50MS), float64(ss.LatencyP95MS)}
	})
	for i, ss := range live {
		p50 := clampLatency(float64(ss.LatencyP50MS))
		p95 := max(p50, clampLatency(float64(ss.LatencyP95MS)))
		if err := addDot(p, row(i, len(live)), p50, 0, p95-p50, st[ss.Name]); err != nil {
			return err
		}
	}
	if err := save(dir, "timing", rowsSize(len(live)), p.Draw); err != nil {
		return err
	}
	if err := pareto(dir, s, live, st); err != nil {
		return err
	}
	if slices.Contains(s.PlotFiles(), "pareto-tokens") {
		return paretoTokens(dir, s, live, st)
	}
	return nil
}

// minLatencyMS is where the log-scale latency axes start: a p50 below it
// (a cached answer) is drawn at it.
const minLatencyMS = 0.01

func clampLatency(ms float64) float64 { return max(ms, minLatencyMS) }

// logX sets p's X axis to a log scale from the decade below the smallest of
// the values vals gives to the decade above the largest.
func logX(p *plot.Plot, live []report.SystemSummary, vals func(report.SystemSummary) []float64) {
	lo, hi := math.Inf(1), 0.0
	for _, ss := range live {
		for _, v := range vals(ss) {
			v = clampLatency(v)
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	p.X.Min = math.Pow(10, math.Floor(math.Log10(lo)))
	p.X.Max = math.Pow(10, math.Ceil(math.Log10(hi)))
	if p.X.Max <= p.X.Min {
		p.X.Max = p.X.Min * 10
	}
}

// style is how one system is drawn: its family's colour and, within the
// family, a shape of its own.
type style struct {
	colour color.Color
	shape  draw.GlyphDrawer
}

// family is the system part of a "system/config" name.
func family(name string) string {
	f, _, _ := strings.Cut(name, "/")
	return f
}

// styles gives each family a colour in the order its first system ran, and
// each system of a family the next shape.
func styles(order []string) map[string]style {
	shapes := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.PyramidGlyph{}, draw.RingGlyph{}, draw.BoxGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{}}
	colours := map[string]color.Color{}
	used := map[string]int{}
	out := map[string]style{}
	for _, name := range order {
		f := family(name)
		c, ok := colours[f]
		if !ok {
			c = OkabeIto[len(colours)%len(OkabeIto)]
			colours[f] = c
		}
		out[name] = style{colour: c, shape: shapes[used[f]%len(shapes)]}
		used[f]++
	}
	return out
}

// rows is a plot with one labelled row per system, the first on top.
func rows(live []report.SystemSummary) *plot.Plot {
	p := plot.New()
	ticks := make([]plot.Tick, len(live))
	for i, ss := range live {
		ticks[i] = plot.Tick{Value: row(i, len(live)), Label: ss.Name}
	}
	p.Y.Tick.Marker = plot.ConstantTicks(ticks)
	p.Y.Min, p.Y.Max = -0.6, float64(len(live))-0.4
	g := plotter.NewGrid()
	g.Horizontal.Color = nil
	p.Add(g)
	return p
}

// row is the Y value of the i-th of n systems: the first is on top.
func row(i, n int) float64 { return float64(n - 1 - i) }

// rowsSize is the size of a figure of n rows: wide enough for the names,
// a fixed height per row.
func rowsSize(n int) size {
	return size{w: 7.5 * vg.Inch, h: vg.Length(0.3*float64(n)+1.1) * vg.Inch}
}

// addDot adds a dot at (x, y) with a bar from x−lo to x+hi.
func addDot(p *plot.Plot, y, x, lo, hi float64, st style) error {
	eb, err := plotter.NewXErrorBars(struct {
		plotter.XYs
		plotter.XErrors
	}{plotter.XYs{{X: x, Y: y}}, plotter.XErrors{{Low: lo, High: hi}}})
	if err != nil {
		return err
	}
	eb.LineStyle.Width = vg.Points(1.5)
	eb.LineStyle.Color = st.colour
	eb.CapWidth = vg.Points(6)
	dot, err := plotter.NewScatter(plotter.XYs{{X: x, Y: y}})
	if err != nil {
		return err
	}
	dot.GlyphStyle = draw.GlyphStyle{Color: st.colour, Radius: vg.Points(4), Shape: st.shape}
	p.Add(eb, dot)
	return nil
}

type size struct{ w, h vg.Length }

// save draws a figure of size sz into dir/base.svg and dir/base.png, each
// written whole or not at all (atomicfile).
func save(dir, base string, sz size, drawTo func(draw.Canvas)) error {
	for _, ext := range []string{"svg", "png"} {
		file := filepath.Join(dir, base+"."+ext)
		c, err := draw.NewFormattedCanvas(sz.w, sz.h, ext)
		if err != nil {
			return fmt.Errorf("plot %s: %w", file, err)
		}
		drawTo(draw.New(c))
		if err := atomicfile.Write(file, func(w io.Writer) error { _, err := c.WriteTo(w); return err }); err != nil {
			return fmt.Errorf("plot %s: %w", file, err)
		}
	}
	return nil
}

// pareto draws primary quality against p50 latency (log scale); the dashed
// line joins the systems no other system beats on both, which the legend,
// beside the plot, marks "front".
func pareto(dir string, s *report.Summary, live []report.SystemSummary, st map[string]style) error {
	prim := s.Primary()
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s — %s vs query latency (Pareto front)", s.Meta.Dataset, prim)
	p.X.Label.Text = "query latency p50 (ms, log scale)"
	logX(p, live, func(ss report.SystemSummary) []float64 { return []float64{float64(ss.LatencyP50MS)} })
	pts := make(plotter.XYs, len(live))
	for i, ss := range live {
		pts[i] = plotter.XY{X: clampLatency(float64(ss.LatencyP50MS)), Y: float64(ss.Micro[prim].Mean)}
	}
	return frontFigure(dir, "pareto", p, prim, live, pts, st)
}

// paretoTokens draws primary quality against the context the top 10 hits
// cost (report.TokensMeasure), with the same front: the systems that
// record both (docs/judging.md, Tokens).
func paretoTokens(dir string, s *report.Summary, live []report.SystemSummary, st map[string]style) error {
	prim := s.Primary()
	var drawn []report.SystemSummary
	var pts plotter.XYs
	for _, ss := range live {
		t, ok1 := ss.Micro[report.TokensMeasure]
		q, ok2 := ss.Micro[prim]
		if ok1 && ok2 {
			drawn = append(drawn, ss)
			pts = append(pts, plotter.XY{X: float64(t.Mean), Y: float64(q.Mean)})
		}
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s — %s vs context tokens (Pareto front)", s.Meta.Dataset, prim)
	p.X.Label.Text = report.TokensMeasure + " (tokens of the top 10 hits)"
	p.X.Min = 0
	return frontFigure(dir, "pareto-tokens", p, prim, drawn, pts, st)
}

// frontFigure draws pts (one per system of live, X lower is better) on p
// with the Pareto front dashed and a legend beside the plot, as base.
func frontFigure(dir, base string, p *plot.Plot, prim string, live []report.SystemSummary, pts plotter.XYs, st map[string]style) error {
	p.Y.Label.Text = prim
	p.Y.Min, p.Y.Max = 0, 1
	g := plotter.NewGrid()
	p.Add(g)
	onFront := front(pts)
	var line plotter.XYs
	for i, xy := range pts {
		if onFront[i] {
			line = append(line, xy)
		}
	}
	sort.Slice(line, func(i, j int) bool { return line[i].X < line[j].X })
	if len(line) > 1 {
		l, err := plotter.NewLine(line)
		if err != nil {
			return err
		}
		l.LineStyle.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(l)
	}
	leg := plot.NewLegend()
	leg.Top, leg.Left = true, true
	leg.Padding = vg.Points(1)
	var widest vg.Length
	for i, ss := range live {
		sc, err := plotter.NewScatter(plotter.XYs{pts[i]})
		if err != nil {
			return err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: st[ss.Name].colour, Radius: vg.Points(4.5), Shape: st[ss.Name].shape}
		p.Add(sc)
		name := ss.Name
		if onFront[i] {
			name += " (front)"
		}
		leg.Add(name, sc)
		widest = max(widest, leg.TextStyle.Rectangle(name).Max.X)
	}
	legendW := widest + leg.ThumbnailWidth + vg.Points(24)
	plotW := 6.5 * vg.Inch
	h := max(4.5*vg.Inch, vg.Length(len(live))*(leg.TextStyle.Font.Size+leg.Padding)*1.25+vg.Inch)
	return save(dir, base, size{w: plotW + legendW, h: h}, func(c draw.Canvas) {
		p.Draw(draw.Crop(c, 0, -legendW, 0, 0))
		right := draw.Crop(c, plotW+vg.Points(12), 0, 0, -vg.Points(28))
		leg.Draw(right)
	})
}

// front reports, for each point, whether no other point is at least as
// fast and as good, and better in one.
func front(pts plotter.XYs) []bool {
	out := make([]bool, len(pts))
	for i, a := range pts {
		out[i] = true
		for j, b := range pts {
			if i != j && b.X <= a.X && b.Y >= a.Y && (b.X < a.X || b.Y > a.Y) {
				out[i] = false
				break
			}
		}
	}
	return out
}
