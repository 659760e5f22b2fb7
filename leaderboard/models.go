package leaderboard

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/retrievalbench/retrievalbench/resultfmt"
)

// ModelRow is one embedding model of the board as its cells record it
// (resultfmt.CellModel: source, dimension, parameter count, engine), with
// the system/configs that ran it.
type ModelRow struct {
	resultfmt.CellModel
	UsedBy []string `json:"used_by"`
}

// buildModels collects the models of every row's cell, one ModelRow per
// distinct description, sorted by id then description.
func buildModels(ds []*Dataset) []ModelRow {
	used := map[resultfmt.CellModel]map[string]bool{}
	for _, d := range ds {
		for _, r := range d.Rows {
			if r.Cell == nil {
				continue
			}
			for _, m := range r.Cell.Models {
				if used[m] == nil {
					used[m] = map[string]bool{}
				}
				used[m][r.Model] = true
			}
		}
	}
	var out []ModelRow
	for m, by := range used {
		out = append(out, ModelRow{CellModel: m, UsedBy: slicesSortedKeys(by)})
	}
	slices.SortFunc(out, func(a, b ModelRow) int { return strings.Compare(modelKey(a.CellModel), modelKey(b.CellModel)) })
	return out
}

func modelKey(m resultfmt.CellModel) string {
	return strings.Join([]string{m.ID, m.Source, strconv.Itoa(m.Dimension), strconv.FormatInt(m.Parameters, 10), m.Engine, m.Served}, "\x00")
}

// parameters writes a parameter count in millions ("22.6M"), "—" when
// unknown.
func parameters(n int64) string {
	switch {
	case n <= 0:
		return "—"
	case n < 1e6:
		return strconv.FormatInt(n, 10)
	case n < 1e9:
		return strconv.FormatFloat(float64(n)/1e6, 'f', 1, 64) + "M"
	}
	return strconv.FormatFloat(float64(n)/1e9, 'f', 2, 64) + "B"
}

func dimension(m resultfmt.CellModel) string {
	if m.Dimension == 0 {
		return "—"
	}
	return strconv.Itoa(m.Dimension)
}

func engine(m resultfmt.CellModel) string {
	e := m.Engine
	if e == "" {
		e = "—"
	}
	if m.Served != "" {
		e += " (" + m.Served + ")"
	}
	return e
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// ModelHeader names the columns of the models table.
func ModelHeader() []string {
	return []string{"model", "source", "dimension", "parameters", "engine", "run by"}
}

// ModelCells returns the cells of the board's model i, aligned with
// ModelHeader.
func (b *Board) ModelCells(i int) []string {
	m := b.Models[i]
	return []string{m.ID, orDash(m.Source), dimension(m.CellModel), parameters(m.Parameters), engine(m.CellModel), strings.Join(m.UsedBy, ", ")}
}

// modelsAbout is the paragraph over the models table.
const modelsAbout = "The embedding models the systems ran, as their cell files record them: where the model was described " +
	"(the built-in manifest, a user manifest, a model folder read in place, or an OpenAI-compatible endpoint), its vector dimension, " +
	"its parameter count (the weights of its ONNX graph; unknown for a server's model) and its engine (ONNX Runtime in the " +
	"benchmark's process, or a server, with the served model and the revision the user declared)."

// datasetModelLines are the rows of a dataset page's Models table:
// system/config, then the model's cells; none when no row's cell records
// a model.
func (d *Dataset) datasetModelLines() [][]string {
	var out [][]string
	for _, r := range d.Rows {
		if r.Cell == nil {
			continue
		}
		for _, m := range r.Cell.Models {
			out = append(out, []string{r.Model, m.ID, orDash(m.Source), dimension(m), parameters(m.Parameters), engine(m)})
		}
	}
	return out
}

// modelsMD is the Models section of a dataset page, "" when no model.
func (d *Dataset) modelsMD() string {
	lines := d.datasetModelLines()
	if len(lines) == 0 {
		return ""
	}
	var w strings.Builder
	w.WriteString("## Models\n\n")
	h := []string{"system/config", "model", "source", "dimension", "parameters", "engine"}
	w.WriteString(mdRow(h))
	w.WriteString("|" + strings.Repeat(" --- |", len(h)) + "\n")
	for _, l := range lines {
		w.WriteString(mdRow(l))
	}
	return w.String() + "\n"
}

// modelsIndexMD is the Models section of index.md, "" when no model.
func (b *Board) modelsIndexMD() string {
	if len(b.Models) == 0 {
		return ""
	}
	var w strings.Builder
	fmt.Fprintf(&w, "\n## Embedding models\n\n%s\n\n", modelsAbout)
	h := ModelHeader()
	w.WriteString(mdRow(h))
	w.WriteString("|" + strings.Repeat(" --- |", len(h)) + "\n")
	for i := range b.Models {
		w.WriteString(mdRow(b.ModelCells(i)))
	}
	return w.String()
}
