package leaderboard

import (
	"encoding/base64"
	"fmt"
	"html"
	"strconv"
	"strings"

	"github.com/retrievalbench/retrievalbench/campaignfmt"
)

// Figures holds the SVG bytes of each dataset's figures: key → base name
// → SVG. HTML embeds them as data URIs, so the page needs no other file.
type Figures map[string]map[string][]byte

const css = `body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:1.5em auto;max-width:96em;padding:0 1em;color:#111}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:.8em 0;font-variant-numeric:tabular-nums}
th,td{border:1px solid #ccc;padding:.25em .5em;text-align:right;white-space:nowrap}
td:nth-child(2),td:nth-child(3),th:nth-child(2){text-align:left}
table.languages td{text-align:right}table.languages td:first-child,table.languages th:first-child{text-align:left}
table.models td{text-align:left}table.models td:nth-child(3),table.models td:nth-child(4){text-align:right}
th{background:#f2f2f2;cursor:pointer;user-select:none}th.asc:after{content:" ▲"}th.desc:after{content:" ▼"}
tr.best td{background:#eef7ee}tr.failed td,tr.incomplete td{color:#999}
div.scroll{max-width:100%;overflow-x:auto}span.ci{display:block;font-size:.8em;color:#555}
figure{display:inline-block;margin:.5em 1em .5em 0;vertical-align:top;max-width:100%;overflow-x:auto}figure img{max-width:100%;height:auto;border:1px solid #eee}
figcaption{font-size:.85em;color:#555}p.about{max-width:70em;color:#333}`

// script sorts a table by the clicked column (numbers by value, the rest
// as text) and, once the page has loaded, writes a render check into the
// DOM: how many tables, body rows and figures there are and how many
// figures decoded (naturalWidth > 0), for a headless browser to read.
const script = `function rbSort(th){var t=th.closest("table"),b=t.tBodies[0],i=Array.prototype.indexOf.call(th.parentNode.children,th);
var asc=!th.classList.contains("asc");Array.prototype.forEach.call(th.parentNode.children,function(h){h.classList.remove("asc","desc")});
th.classList.add(asc?"asc":"desc");var rows=Array.prototype.slice.call(b.rows);
rows.sort(function(x,y){var a=x.cells[i].getAttribute("data-v")||x.cells[i].textContent,c=y.cells[i].getAttribute("data-v")||y.cells[i].textContent;
var na=parseFloat(a),nc=parseFloat(c),r=(!isNaN(na)&&!isNaN(nc))?na-nc:a.localeCompare(c);return asc?r:-r});
rows.forEach(function(r){b.appendChild(r)})}
window.addEventListener("load",function(){var imgs=document.querySelectorAll("figure img"),ok=0;
imgs.forEach(function(im){var w=im.complete?im.naturalWidth:0;im.setAttribute("data-natural-width",w);if(w>0)ok++});
var c=document.getElementById("render-check");c.setAttribute("data-tables",document.querySelectorAll("table").length);
c.setAttribute("data-rows",document.querySelectorAll("table tbody tr").length);c.setAttribute("data-images",imgs.length);
c.setAttribute("data-images-loaded",ok);c.setAttribute("data-done","1")});`

// HTML renders index.html: every dataset's table and figures in one
// self-contained page (inline CSS and script, figures as data URIs).
func (b *Board) HTML(figs Figures) []byte {
	var w strings.Builder
	e := html.EscapeString
	w.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	fmt.Fprintf(&w, "<title>%s</title>\n<style>%s</style>\n<script>%s</script>\n</head>\n<body>\n", e(b.Title), css, script)
	fmt.Fprintf(&w, "<h1>%s</h1>\n<p>%s</p>\n", e(b.Title), e(b.provenance()))
	w.WriteString("<table id=\"datasets\">\n<thead><tr>")
	for _, h := range []string{"dataset", "split", "cases", "systems", "ranked by", "best", "best score [95% CI]", "page"} {
		fmt.Fprintf(&w, "<th onclick=\"rbSort(this)\">%s</th>", e(h))
	}
	w.WriteString("</tr></thead>\n<tbody>\n")
	for _, d := range b.Datasets {
		best, score, v := "— (every system failed)", "—", ""
		if d.Best != "" {
			best, score, v = d.Best, stat(d.Rows[0].Scores[d.Primary]), f4(d.Rows[0].Scores[d.Primary].Mean)
		}
		fmt.Fprintf(&w, "<tr><td><a href=\"#%s\">%s</a></td><td>%s</td><td>%d</td><td>%d</td><td>%s</td><td>%s</td><td data-v=\"%s\">%s</td><td><a href=\"%s/index.md\">%s/index.md</a></td></tr>\n",
			e(d.Key), e(d.Dataset), e(d.Split), d.Cases, len(d.Rows), e(d.Primary), e(best), v, e(score), e(d.Key), e(d.Key))
	}
	w.WriteString("</tbody>\n</table>\n")
	for _, t := range b.Languages {
		fmt.Fprintf(&w, "<section id=\"%s\" class=\"languages\" data-rows=\"%d\">\n", e(t.Key), len(t.Rows))
		fmt.Fprintf(&w, "<h2>%s across languages (split %s)</h2>\n<p class=\"about\">%s</p>\n", e(t.Title), e(t.Split), e(t.about(b)))
		w.WriteString("<div class=\"scroll\"><table class=\"languages\">\n<thead><tr>")
		for _, h := range t.Header() {
			fmt.Fprintf(&w, "<th onclick=\"rbSort(this)\">%s</th>", e(h))
		}
		w.WriteString("</tr></thead>\n<tbody>\n")
		for i, r := range t.Rows {
			if r.Macro == nil && !t.Smoke {
				w.WriteString("<tr class=\"incomplete\">")
			} else {
				w.WriteString("<tr>")
			}
			for j, c := range t.Cells(i) {
				writeCell(&w, c, t.sortValue(i, j))
			}
			w.WriteString("</tr>\n")
		}
		w.WriteString("</tbody>\n</table></div>\n</section>\n")
	}
	if len(b.Models) > 0 {
		fmt.Fprintf(&w, "<section id=\"models\" data-rows=\"%d\">\n<h2>Embedding models</h2>\n<p class=\"about\">%s</p>\n", len(b.Models), e(modelsAbout))
		w.WriteString("<div class=\"scroll\"><table class=\"models\">\n<thead><tr>")
		for _, h := range ModelHeader() {
			fmt.Fprintf(&w, "<th onclick=\"rbSort(this)\">%s</th>", e(h))
		}
		w.WriteString("</tr></thead>\n<tbody>\n")
		for i, m := range b.Models {
			w.WriteString("<tr>")
			for j, c := range b.ModelCells(i) {
				v := ""
				switch {
				case j == 2 && m.Dimension > 0:
					v = strconv.Itoa(m.Dimension)
				case j == 3 && m.Parameters > 0:
					v = strconv.FormatInt(m.Parameters, 10)
				}
				writeCell(&w, c, v)
			}
			w.WriteString("</tr>\n")
		}
		w.WriteString("</tbody>\n</table></div>\n</section>\n")
	}
	for _, d := range b.Datasets {
		fmt.Fprintf(&w, "<section id=\"%s\" class=\"dataset\" data-rows=\"%d\" data-figures=\"%d\">\n", e(d.Key), len(d.Rows), len(d.PlotFiles()))
		fmt.Fprintf(&w, "<h2>%s (split %s)</h2>\n<p class=\"about\">%s</p>\n", e(d.Dataset), e(d.Split), e(d.about(b)))
		w.WriteString("<div class=\"scroll\"><table class=\"board\">\n<thead><tr>")
		for _, h := range d.Header() {
			fmt.Fprintf(&w, "<th onclick=\"rbSort(this)\">%s</th>", e(h))
		}
		w.WriteString("</tr></thead>\n<tbody>\n")
		for i, r := range d.Rows {
			class := ""
			switch {
			case r.Model == d.Best:
				class = " class=\"best\""
			case r.Status == "failed":
				class = " class=\"failed\""
			}
			fmt.Fprintf(&w, "<tr%s>", class)
			vals := sortValues(d, r)
			for j, c := range d.Cells(i) {
				writeCell(&w, c, vals[j])
			}
			w.WriteString("</tr>\n")
		}
		w.WriteString("</tbody>\n</table></div>\n")
		w.WriteString(d.tokensHTML())
		if lines := d.warningLines(); len(lines) > 0 {
			w.WriteString("<h3>Warnings</h3>\n<ul class=\"warnings\">\n")
			for _, l := range lines {
				fmt.Fprintf(&w, "<li>%s</li>\n", e(l))
			}
			w.WriteString("</ul>\n")
		}
		for _, f := range d.PlotFiles() {
			svg := figs[d.Key][f]
			fmt.Fprintf(&w, "<figure><img alt=\"%s %s\" src=\"data:image/svg+xml;base64,%s\"><figcaption>%s — <a href=\"%s/plots/%s.svg\">SVG</a> · <a href=\"%s/plots/%s.png\">PNG</a></figcaption></figure>\n",
				e(d.Key), e(f), base64.StdEncoding.EncodeToString(svg), e(f), e(d.Key), e(f), e(d.Key), e(f))
		}
		w.WriteString("</section>\n")
	}
	w.WriteString("<div id=\"render-check\" hidden></div>\n</body>\n</html>\n")
	return []byte(w.String())
}

// writeCell writes one table cell: a score "mean [low, high]" shows its
// CI on a line of its own; v, when set, is the cell's numeric sort key.
func writeCell(w *strings.Builder, c, v string) {
	e := html.EscapeString
	text := e(c)
	if mean, ci, ok := strings.Cut(c, " ["); ok {
		text = e(mean) + "<span class=\"ci\">[" + e(ci) + "</span>"
	}
	if v != "" {
		fmt.Fprintf(w, "<td data-v=\"%s\">%s</td>", v, text)
	} else {
		fmt.Fprintf(w, "<td>%s</td>", text)
	}
}

// sortValues are the numeric sort keys of a row's cells ("" sorts as
// text), aligned with Dataset.Header.
func sortValues(d *Dataset, r Row) []string {
	v := []string{strconv.Itoa(r.Rank), "", ""}
	if r.Rank == 0 {
		v[0] = "" // unranked (failed): sorts as text, after the numbers
	}
	for _, m := range d.Measures {
		s, ok := r.Scores[m]
		if !ok {
			v = append(v, "")
			continue
		}
		v = append(v, f4(s.Mean))
	}
	diff, p, holm := "", "", ""
	if r.VsBest != nil {
		diff, p, holm = f4(r.VsBest.Diff), f4(r.VsBest.PPermutation), f4(r.VsBest.PHolm)
	} else if r.Model == d.Best {
		diff = "0"
	}
	v = append(v, diff, p, holm)
	if r.Status == campaignfmt.StatusFailed {
		v = append(v, "", "")
	} else {
		v = append(v, f4(r.LatencyP50MS), f4(r.LatencyP95MS))
	}
	if r.Cell != nil {
		v = append(v, strconv.FormatFloat(r.Cell.IndexSeconds, 'f', 2, 64), f1(r.Cell.PeakRSSMB))
	} else {
		v = append(v, "", "")
	}
	v = append(v, "") // CPU class sorts as text
	return v
}
