package report

import (
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/retrievalbench/retrievalbench/campaignfmt"
	"github.com/retrievalbench/retrievalbench/fileline"
	"github.com/retrievalbench/retrievalbench/internal/atomicfile"
	"github.com/retrievalbench/retrievalbench/internal/datafile"
	"github.com/retrievalbench/retrievalbench/resultfmt"
)

// PoolEntry is one distinct result of a task's pool.
type PoolEntry struct {
	Task     string     `json:"case_id"`
	Repo     string     `json:"repo"`
	Intent   string     `json:"intent"`
	Query    string     `json:"query"`
	DocID    string     `json:"result_id"`
	RankedBy []PoolRank `json:"ranked_by_models"`
	Kind     string     `json:"kind"`
	Path     string     `json:"path"`
	Symbol   string     `json:"symbol"`
	// Grade is filled in when the case file's gold already grades the
	// result; nil means a person has to.
	Grade *int   `json:"grade"`
	Notes string `json:"notes"`
	// CaseSHA and HitSHA bind a grade to what was graded: the case's query
	// and gold (campaignfmt.Task.SHA256) and the hit's text (hitSHA). score
	// sets aside a grade whose case or hit changed since (stale).
	CaseSHA string `json:"case_sha256,omitempty"`
	HitSHA  string `json:"hit_sha256,omitempty"`
	// Impact is how much grading the result can move a paired comparison:
	// the spread, over the systems that ran the case, of the DCG weight
	// 1/log2(rank+1) each gives it (0 when not in its top depth). 0: every
	// system ranks it alike, so no grade of it changes a difference
	// between systems. The grading sheet lists rows by it.
	Impact float64 `json:"impact"`
}

// hitSHA is what a grade of h is bound to: the hash of its doc's text
// when the record carries it, else of what it names (kind, path, symbol,
// lines; a location hit of an external system, or a record written before
// texts were hashed), prefixed "at:".
func hitSHA(h resultfmt.Hit) string {
	if h.TextSHA != "" {
		return h.TextSHA
	}
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%s\x00%s\x00%s\x00%d\x00%d", h.DocID, h.Kind, h.Path, h.Symbol, h.StartLine, h.EndLine)))
	return "at:" + hex.EncodeToString(sum[:])[:13]
}

// PoolRank is where one system ranked a pooled result.
type PoolRank struct {
	Model string `json:"model"`
	Rank  int    `json:"rank"`
}

func (e PoolEntry) bestRank() int {
	best := 0
	for _, r := range e.RankedBy {
		if best == 0 || r.Rank < best {
			best = r.Rank
		}
	}
	return best
}

// resultIDs names the result each hit of recs is, per task: a hit's own
// doc id, except for an external system's location that points at the same
// lines as a chunk some system ranked (the harness records a location with
// the lines it resolves to), which is that chunk — one result to grade, not
// two. Among several chunks with those lines the smallest id names them.
type resultIDs map[string]map[string]string // task → lines key → chunk id

func newResultIDs(recs []resultfmt.Record) resultIDs {
	ids := resultIDs{}
	for i := range recs {
		for _, h := range recs[i].Hits {
			k, ok := linesKey(h)
			if !ok || h.Located {
				continue
			}
			if ids[recs[i].Task] == nil {
				ids[recs[i].Task] = map[string]string{}
			}
			if old, seen := ids[recs[i].Task][k]; !seen || h.DocID < old {
				ids[recs[i].Task][k] = h.DocID
			}
		}
	}
	return ids
}

// linesKey is the lines h points at, when it has them.
func linesKey(h resultfmt.Hit) (string, bool) {
	if h.Path == "" || h.StartLine <= 0 {
		return "", false
	}
	return h.Path + ":" + strconv.Itoa(h.StartLine) + "-" + strconv.Itoa(max(h.EndLine, h.StartLine)), true
}

// of is the id of the result h of task's records is.
func (ids resultIDs) of(task string, h resultfmt.Hit) string {
	if h.Located {
		if k, ok := linesKey(h); ok {
			if id, ok := ids[task][k]; ok {
				return id
			}
		}
	}
	return h.DocID
}

// Pool takes the top depth hits of every record per task, deduplicates them
// by the result they are (resultIDs: a location of a chunk's lines is that
// chunk) and orders them stably: tasks in run order, then within a task
// by best rank, then by how many systems ranked the result (more first),
// then by doc id. Records should be judged first (Judge) so that gold
// grades are filled in.
func Pool(run *campaignfmt.Campaign, recs []resultfmt.Record, depth int) []PoolEntry {
	byTask := map[string]map[string]*PoolEntry{}
	ids := newResultIDs(recs)
	// A result as its own hit shows it (a chunk, not a location of it), at
	// any rank: what the sheet lists and a grade binds to (Bind).
	own := map[[2]string]resultfmt.Hit{}
	for i := range recs {
		for _, h := range recs[i].Hits {
			if k := [2]string{recs[i].Task, h.DocID}; ids.of(recs[i].Task, h) == h.DocID {
				if _, ok := own[k]; !ok {
					own[k] = h
				}
			}
		}
	}
	caseSHA := map[string]string{}
	for _, t := range run.Tasks {
		caseSHA[t.ID] = t.SHA256()
	}
	for i := range recs {
		r := &recs[i]
		if byTask[r.Task] == nil {
			byTask[r.Task] = map[string]*PoolEntry{}
		}
		for _, h := range r.Hits {
			if h.Rank > depth {
				continue
			}
			id := ids.of(r.Task, h)
			e := byTask[r.Task][id]
			if e == nil {
				shown := own[[2]string{r.Task, id}]
				e = &PoolEntry{Task: r.Task, Repo: r.Repo, Intent: r.Intent, Query: r.Query, DocID: id, Kind: shown.Kind, Path: shown.Path,
					Symbol: shown.Symbol, CaseSHA: caseSHA[r.Task], HitSHA: hitSHA(shown)}
				byTask[r.Task][id] = e
			}
			if h.Judged && e.Grade == nil {
				g := h.Grade
				e.Grade = &g
				e.Notes = "graded by the case file's gold"
			}
			if k := slices.IndexFunc(e.RankedBy, func(p PoolRank) bool { return p.Model == r.Model() }); k >= 0 {
				e.RankedBy[k].Rank = min(e.RankedBy[k].Rank, h.Rank) // a system that named it twice
				continue
			}
			e.RankedBy = append(e.RankedBy, PoolRank{Model: r.Model(), Rank: h.Rank})
		}
	}
	var out []PoolEntry
	ran := map[string]int{} // task → systems that answered it
	for i := range recs {
		if recs[i].Error == "" {
			ran[recs[i].Task]++
		}
	}
	for _, t := range run.Tasks {
		var es []PoolEntry
		for _, e := range byTask[t.ID] {
			sort.Slice(e.RankedBy, func(a, b int) bool { return e.RankedBy[a].Model < e.RankedBy[b].Model })
			e.Impact = impact(e.RankedBy, ran[t.ID])
			es = append(es, *e)
		}
		sort.Slice(es, func(a, b int) bool {
			ra, rb := es[a].bestRank(), es[b].bestRank()
			if ra != rb {
				return ra < rb
			}
			if len(es[a].RankedBy) != len(es[b].RankedBy) {
				return len(es[a].RankedBy) > len(es[b].RankedBy)
			}
			return es[a].DocID < es[b].DocID
		})
		out = append(out, es...)
	}
	return out
}

// SheetHeader is the header row of grading-sheet.csv.
// case_sha256 and hit_sha256 bind each grade to the case and the hit as
// they were graded (PoolEntry).
var SheetHeader = []string{"case_id", "repo", "intent", "query", "result_id", "ranked_by_models", "kind", "path", "symbol", "grade", "notes", "case_sha256", "hit_sha256", "impact"}

// impact is the spread of the DCG weights n systems give a result that
// those of rs ranked (the others give it 0), rounded to 4 decimals.
func impact(rs []PoolRank, n int) float64 {
	if n < 2 {
		return 0
	}
	lo, hi := math.Inf(1), 0.0
	for _, r := range rs {
		w := 1 / math.Log2(float64(r.Rank)+1)
		lo, hi = min(lo, w), max(hi, w)
	}
	if len(rs) < n {
		lo = 0
	}
	return resultfmt.Round4(hi - lo)
}

// EffortRow is the grading effort of one pool depth: how many distinct
// results the pool holds, how many already have a grade (the gold's, or a
// person's), how many are left to grade, and how many of those can change
// a paired comparison (Impact > 0).
type EffortRow struct {
	Depth     int `json:"depth"`
	Results   int `json:"results"`
	Graded    int `json:"graded"`
	ToGrade   int `json:"to_grade"`
	CanChange int `json:"can_change"`
}

// Effort is the grading effort at depths 1, 3, 5, 10, 20 and depth (the
// campaign's, when not among them; 0: none), as far as the records reach.
func Effort(run *campaignfmt.Campaign, recs []resultfmt.Record, depth int) []EffortRow {
	deepest := 0
	for i := range recs {
		for _, h := range recs[i].Hits {
			deepest = max(deepest, h.Rank)
		}
	}
	ds := []int{1, 3, 5, 10, 20}
	if depth > 0 && !slices.Contains(ds, depth) {
		ds = append(ds, depth)
		slices.Sort(ds)
	}
	var out []EffortRow
	for _, d := range ds {
		if d > deepest && d != depth {
			continue
		}
		row := EffortRow{Depth: d}
		for _, e := range Pool(run, recs, d) {
			row.Results++
			switch {
			case e.Grade != nil:
				row.Graded++
			case e.Impact > 0:
				row.ToGrade++
				row.CanChange++
			default:
				row.ToGrade++
			}
		}
		out = append(out, row)
	}
	return out
}

// SheetOrder is the order of grading-sheet.csv: the rows to grade first,
// by impact (most first: the rows that can change a decision), then in
// pool order; the rows the gold already grades last.
func SheetOrder(pool []PoolEntry) []PoolEntry {
	out := slices.Clone(pool)
	sort.SliceStable(out, func(a, b int) bool {
		ga, gb := out[a].Grade != nil, out[b].Grade != nil
		if ga != gb {
			return gb
		}
		return out[a].Impact > out[b].Impact
	})
	return out
}

func rankedBy(rs []PoolRank) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = r.Model + "@" + strconv.Itoa(r.Rank)
	}
	return strings.Join(parts, ";")
}

// WritePool writes pooled-results.jsonl (in pool order) and
// grading-sheet.csv (in SheetOrder) into dir.
func WritePool(dir string, pool []PoolEntry) error {
	var jb bytes.Buffer
	enc := json.NewEncoder(&jb)
	enc.SetEscapeHTML(false)
	var cb bytes.Buffer
	w := csv.NewWriter(&cb)
	_ = w.Write(SheetHeader)
	for _, e := range pool {
		if err := enc.Encode(e); err != nil {
			return err
		}
	}
	for _, e := range SheetOrder(pool) {
		grade := ""
		if e.Grade != nil {
			grade = strconv.Itoa(*e.Grade)
		}
		_ = w.Write([]string{e.Task, e.Repo, e.Intent, e.Query, e.DocID, rankedBy(e.RankedBy), e.Kind, e.Path, e.Symbol, grade, e.Notes, e.CaseSHA, e.HitSHA,
			strconv.FormatFloat(e.Impact, 'f', 4, 64)})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	if err := atomicfile.WriteFile(dir+"/pooled-results.jsonl", jb.Bytes()); err != nil {
		return err
	}
	return atomicfile.WriteFile(dir+"/grading-sheet.csv", cb.Bytes())
}

// ReadSheet reads the judgments of a filled grading sheet: every row with
// a grade (blank grades are unjudged). Columns are found by header name;
// case_id, result_id and grade are required. A bad grade, or one result
// graded twice differently, is an error naming file:line.
func ReadSheet(file string) ([]Judgment, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	head, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("%s:1: %w", file, err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))] = i
	}
	for _, need := range []string{"case_id", "result_id", "grade"} {
		if _, ok := col[need]; !ok {
			return nil, fmt.Errorf("%s:1: no %q column", file, need)
		}
	}
	var js []Judgment
	seen := map[[2]string]Judgment{}
	for {
		row, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			// csv.ParseError carries the line; FieldPos is only valid after a
			// successful Read (it panics on a malformed row).
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		line, _ := r.FieldPos(0)
		get := func(c string) string {
			if i, ok := col[c]; ok && i < len(row) {
				return strings.TrimSpace(row[i])
			}
			return ""
		}
		j, err := judgment(file, line, get("case_id"), get("result_id"), get("grade"))
		if err != nil {
			return nil, err
		}
		if j == nil {
			continue
		}
		j.CaseSHA, j.HitSHA = get("case_sha256"), get("hit_sha256")
		if err := addJudgment(&js, seen, *j); err != nil {
			return nil, err
		}
	}
	return js, nil
}

func judgment(file string, line int, task, doc, grade string) (*Judgment, error) {
	if grade == "" {
		return nil, nil
	}
	if task == "" || doc == "" {
		return nil, fileline.Errorf(file, line, "a grade needs case_id and result_id")
	}
	g, err := strconv.Atoi(grade)
	if err != nil || g < 0 || g > 3 {
		return nil, fileline.Errorf(file, line, "grade %q is not an integer 0..3", grade)
	}
	return &Judgment{Task: task, DocID: doc, Grade: g, Source: fmt.Sprintf("%s:%d", file, line)}, nil
}

func addJudgment(js *[]Judgment, seen map[[2]string]Judgment, j Judgment) error {
	k := [2]string{j.Task, j.DocID}
	if prev, ok := seen[k]; ok {
		if prev.Grade != j.Grade {
			return fmt.Errorf("%s: %s %s graded %d, but %d at %s", j.Source, j.Task, j.DocID, j.Grade, prev.Grade, prev.Source)
		}
		return nil
	}
	seen[k] = j
	*js = append(*js, j)
	return nil
}

// ReadLabels reads judgments from JSON Lines {"case_id", "result_id",
// "grade"}.
func ReadLabels(file string) ([]Judgment, error) {
	var js []Judgment
	seen := map[[2]string]Judgment{}
	err := datafile.EachLine(file, func(line int, b []byte) error {
		var l struct {
			Task    string `json:"case_id"`
			DocID   string `json:"result_id"`
			Grade   *int   `json:"grade"`
			Notes   string `json:"notes"`
			CaseSHA string `json:"case_sha256"`
			HitSHA  string `json:"hit_sha256"`
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&l); err != nil {
			return fileline.Errorf(file, line, "%w", err)
		}
		if l.Grade == nil {
			return fileline.Errorf(file, line, "missing grade")
		}
		j, err := judgment(file, line, l.Task, l.DocID, strconv.Itoa(*l.Grade))
		if err != nil {
			return err
		}
		j.CaseSHA, j.HitSHA = l.CaseSHA, l.HitSHA
		return addJudgment(&js, seen, *j)
	})
	if err != nil {
		return nil, err
	}
	return js, nil
}
