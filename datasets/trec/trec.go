// Package trec loads classic TREC test collections: SGML documents
// (<DOC><DOCNO>…</DOCNO>…</DOC>, plain or gzip), topics (<top><num>…
// <title>…</top>, in the classic "Number:"/"Topic:" layout or the
// one-field layout of Terrier's vaswani query-text.trec) and qrels
// ("TOPIC ITER DOCNO REL", read by trecfmt). Documents become Kind "doc"
// with their text; every judged document of a topic becomes a graded
// Relevant.
package trec

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/datasets"
	"github.com/retrievalbench/retrievalbench/fileline"
	"github.com/retrievalbench/retrievalbench/internal/datafile"
	"github.com/retrievalbench/retrievalbench/trecfmt"
)

// Files names the parts of one collection.
type Files struct {
	Name   string   // collection and corpus ID, e.g. "vaswani"
	Docs   []string // SGML document files, plain or .gz
	Topics string
	Qrels  string
}

// Config tunes loading.
type Config struct {
	// QueryFields are the topic fields joined (with a space) into the query:
	// "title", "desc", "narr". Default: title.
	QueryFields []string
	Split       string // datasets split name; "" = all
	SplitConfig datasets.SplitConfig
}

// DefaultConfig queries with the title field over every topic.
func DefaultConfig() Config {
	return Config{QueryFields: []string{"title"}, Split: datasets.SplitAll, SplitConfig: datasets.DefaultSplitConfig()}
}

// Discover finds a collection's files in dir: qrels is the file named
// "qrels" or "qrels.*"; topics the file whose name contains "topic" or
// "query"; documents every other file ending in .trec, .sgml, .txt or .gz
// (or any file under a "docs" or "corpus" subdirectory).
func Discover(dir string) (Files, error) {
	f := Files{Name: filepath.Base(dir)}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return f, err
	}
	for _, e := range entries {
		name := e.Name()
		p := filepath.Join(dir, name)
		lower := strings.ToLower(name)
		switch {
		case e.IsDir() && (lower == "docs" || lower == "corpus"):
			sub, err := filepath.Glob(filepath.Join(p, "*"))
			if err != nil {
				return f, err
			}
			f.Docs = append(f.Docs, sub...)
		case e.IsDir():
		case lower == "qrels" || strings.HasPrefix(lower, "qrels."):
			f.Qrels = p
		case strings.Contains(lower, "topic") || strings.Contains(lower, "query"):
			f.Topics = p
		case strings.HasSuffix(lower, ".trec") || strings.HasSuffix(lower, ".sgml") || strings.HasSuffix(lower, ".gz"):
			f.Docs = append(f.Docs, p)
		}
	}
	sort.Strings(f.Docs)
	// A fetched "x" and a mirrored "x.gz" hold the same records: read one.
	have := map[string]bool{}
	for _, d := range f.Docs {
		have[d] = true
	}
	docs := f.Docs[:0]
	for _, d := range f.Docs {
		if !(strings.HasSuffix(d, ".gz") && have[strings.TrimSuffix(d, ".gz")]) {
			docs = append(docs, d)
		}
	}
	f.Docs = docs
	switch {
	case len(f.Docs) == 0:
		return f, fmt.Errorf("%s: no document files (*.trec, *.sgml, *.gz, docs/)", dir)
	case f.Topics == "":
		return f, fmt.Errorf("%s: no topics file (name containing \"topic\" or \"query\")", dir)
	case f.Qrels == "":
		return f, fmt.Errorf("%s: no qrels file", dir)
	}
	return f, nil
}

// Load reads the collection in <dataDir>/<name> (see Discover).
func Load(dataDir, name string, cfg Config) (*datasets.Dataset, error) {
	f, err := Discover(filepath.Join(dataDir, name))
	if err != nil {
		return nil, err
	}
	return LoadFiles(f, cfg)
}

// LoadFiles reads one collection. Topics without a relevant judgment are
// Dropped; judgments of documents absent from the collection are skipped
// and counted in Notes.
func LoadFiles(f Files, cfg Config) (*datasets.Dataset, error) {
	if len(cfg.QueryFields) == 0 {
		cfg.QueryFields = []string{"title"}
	}
	c := &corpus.Corpus{ID: f.Name}
	seen := map[string]string{}
	for _, file := range f.Docs {
		if err := ReadDocs(file, func(d corpus.Doc, line int) error {
			if prev, dup := seen[d.ID]; dup {
				return fileline.Errorf(file, line, "duplicate DOCNO %q (first at %s)", d.ID, prev)
			}
			seen[d.ID] = fmt.Sprintf("%s:%d", file, line)
			c.Docs = append(c.Docs, d)
			return nil
		}); err != nil {
			return nil, err
		}
	}
	topics, err := ReadTopics(f.Topics)
	if err != nil {
		return nil, err
	}
	qrels, err := ReadQrels(f.Qrels)
	if err != nil {
		return nil, err
	}
	ds := &datasets.Dataset{Name: f.Name, Split: datasets.SplitAll, Corpora: map[string]*corpus.Corpus{c.ID: c}}
	missing, unknownTopics := 0, map[string]bool{}
	known := map[string]bool{}
	for _, t := range topics {
		known[t.Num] = true
	}
	for _, j := range qrels {
		if !known[j.Topic] {
			unknownTopics[j.Topic] = true
		}
	}
	byTopic := map[string][]Judgment{}
	for _, j := range qrels {
		byTopic[j.Topic] = append(byTopic[j.Topic], j)
	}
	for _, t := range topics {
		var q []string
		for _, fld := range cfg.QueryFields {
			if v := t.Fields[fld]; v != "" {
				q = append(q, v)
			}
		}
		query := strings.Join(q, " ")
		task := datasets.Task{ID: t.Num, Query: query, CorpusID: c.ID}
		relevant := false
		for _, j := range byTopic[t.Num] {
			if _, ok := seen[j.DocNo]; !ok {
				missing++
				continue
			}
			if j.Rel < 0 {
				continue // trec_eval: negative judgments are non-relevant
			}
			task.Gold = append(task.Gold, datasets.Relevant{Kind: "doc", ID: j.DocNo, Grade: j.Rel})
			relevant = relevant || j.Rel > 0
		}
		switch {
		case query == "":
			ds.Dropped = append(ds.Dropped, datasets.Dropped{ID: t.Num, Reason: "topic has none of the query fields " + strings.Join(cfg.QueryFields, "+")})
		case !relevant:
			ds.Dropped = append(ds.Dropped, datasets.Dropped{ID: t.Num, Reason: "no relevant judgment in the qrels"})
		default:
			ds.Tasks = append(ds.Tasks, task)
		}
	}
	if missing > 0 {
		ds.Notes = append(ds.Notes, fmt.Sprintf("%d qrels lines judge documents absent from the collection (skipped)", missing))
	}
	if len(unknownTopics) > 0 {
		ds.Notes = append(ds.Notes, fmt.Sprintf("qrels judge %d topics absent from the topics file (ignored)", len(unknownTopics)))
	}
	return split(ds, cfg)
}

func split(ds *datasets.Dataset, cfg Config) (*datasets.Dataset, error) {
	if cfg.Split == "" {
		cfg.Split = datasets.SplitAll
	}
	sc := cfg.SplitConfig.OrDefault(ds.Name)
	tasks, err := datasets.Split(ds.Tasks, cfg.Split, sc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ds.Name, err)
	}
	ds.Tasks, ds.Split = tasks, cfg.Split
	return ds, nil
}

var (
	tagRE    = regexp.MustCompile(`<(/?)([A-Za-z][A-Za-z0-9_]*)[^>]*>`)
	docnoRE  = regexp.MustCompile(`(?is)<DOCNO>\s*(.*?)\s*</DOCNO>`)
	textRE   = regexp.MustCompile(`(?is)<TEXT>(.*?)</TEXT>`)
	titleRE  = regexp.MustCompile(`(?is)<(HEADLINE|TITLE|HL|HEAD)>(.*?)</(HEADLINE|TITLE|HL|HEAD)>`)
	spacesRE = regexp.MustCompile(`\s+`)
)

// ReadDocs streams the <DOC> records of an SGML file (gzip when it ends in
// .gz) to fn with the line each starts on. Text is the content of the <TEXT>
// elements when there are any, else the whole record without its DOCNO;
// remaining tags are stripped. Title is a HEADLINE/TITLE/HL/HEAD element.
func ReadDocs(file string, fn func(d corpus.Doc, line int) error) error {
	r, err := datafile.Open(file)
	if err != nil {
		return err
	}
	defer r.Close()
	br := bufio.NewReaderSize(r, 1<<20)
	var buf strings.Builder
	start, in := 0, false
	for line := 1; ; line++ {
		b, rerr := br.ReadString('\n')
		upper := strings.ToUpper(strings.TrimSpace(b))
		switch {
		case strings.HasPrefix(upper, "<DOC>"):
			if in {
				return fileline.Errorf(file, line, "<DOC> inside the <DOC> opened on line %d", start)
			}
			in, start = true, line
			buf.Reset()
			buf.WriteString(b)
		case in:
			buf.WriteString(b)
		case upper != "":
			return fileline.Errorf(file, line, "text outside a <DOC> record")
		}
		if in && strings.Contains(upper, "</DOC>") {
			in = false
			d, err := parseDoc(buf.String())
			if err != nil {
				return &fileline.Error{File: file, Line: start, Err: err}
			}
			if err := fn(d, start); err != nil {
				return err
			}
		}
		if errors.Is(rerr, io.EOF) {
			if in {
				return fileline.Errorf(file, start, "<DOC> never closed")
			}
			return nil
		}
		if rerr != nil {
			return &fileline.Error{File: file, Line: line, Err: rerr}
		}
	}
}

func parseDoc(rec string) (corpus.Doc, error) {
	m := docnoRE.FindStringSubmatch(rec)
	if m == nil || m[1] == "" {
		return corpus.Doc{}, errors.New("<DOC> without a <DOCNO>")
	}
	d := corpus.Doc{ID: m[1], Kind: "doc"}
	if t := titleRE.FindStringSubmatch(rec); t != nil {
		d.Title = clean(t[2])
	}
	if texts := textRE.FindAllStringSubmatch(rec, -1); texts != nil {
		var parts []string
		for _, t := range texts {
			parts = append(parts, t[1])
		}
		d.Text = clean(strings.Join(parts, "\n"))
	} else {
		body := docnoRE.ReplaceAllString(rec, " ")
		d.Text = clean(body)
	}
	return d, nil
}

// clean strips tags and squeezes whitespace.
func clean(s string) string {
	return strings.TrimSpace(spacesRE.ReplaceAllString(tagRE.ReplaceAllString(s, " "), " "))
}

// Topic is one <top> record: its number and its fields (title, desc,
// narr) with the classic "Topic:", "Description:", "Narrative:" labels
// removed.
type Topic struct {
	Num    string
	Fields map[string]string
	Line   int
}

var fieldLabels = map[string]*regexp.Regexp{
	"num":   regexp.MustCompile(`(?i)^number:\s*`),
	"title": regexp.MustCompile(`(?i)^topic:\s*`),
	"desc":  regexp.MustCompile(`(?i)^description:\s*`),
	"narr":  regexp.MustCompile(`(?i)^narrative:\s*`),
}

// ReadTopics reads a TREC topics file.
func ReadTopics(file string) ([]Topic, error) {
	b, err := datafile.ReadAll(file)
	if err != nil {
		return nil, err
	}
	s := string(b)
	lineAt := func(off int) int { return 1 + strings.Count(s[:off], "\n") }
	var topics []Topic
	seen := map[string]int{}
	var cur *Topic
	var field string
	var fieldStart int
	flush := func(end int) {
		if cur != nil && field != "" {
			v := clean(s[fieldStart:end])
			if re := fieldLabels[field]; re != nil {
				v = re.ReplaceAllString(v, "")
			}
			if _, dup := cur.Fields[field]; !dup || cur.Fields[field] == "" {
				cur.Fields[field] = v
			}
		}
		field = ""
	}
	for _, m := range tagRE.FindAllStringSubmatchIndex(s, -1) {
		closing := s[m[2]:m[3]] == "/"
		name := strings.ToLower(s[m[4]:m[5]])
		switch {
		case name == "top" && !closing:
			if cur != nil {
				return nil, fileline.Errorf(file, lineAt(m[0]), "<top> inside the <top> opened on line %d", cur.Line)
			}
			cur = &Topic{Fields: map[string]string{}, Line: lineAt(m[0])}
		case name == "top" && closing:
			if cur == nil {
				return nil, fileline.Errorf(file, lineAt(m[0]), "</top> without <top>")
			}
			flush(m[0])
			cur.Num = cur.Fields["num"]
			delete(cur.Fields, "num")
			if cur.Num == "" {
				return nil, fileline.Errorf(file, cur.Line, "topic without <num>")
			}
			if prev, dup := seen[cur.Num]; dup {
				return nil, fileline.Errorf(file, cur.Line, "duplicate topic %q (first on line %d)", cur.Num, prev)
			}
			seen[cur.Num] = cur.Line
			if cur.Fields["title"] == "" && cur.Fields["desc"] == "" {
				return nil, fileline.Errorf(file, cur.Line, "topic %s has an empty title", cur.Num)
			}
			topics = append(topics, *cur)
			cur = nil
		case cur == nil:
			return nil, fileline.Errorf(file, lineAt(m[0]), "<%s%s> outside a <top>", s[m[2]:m[3]], name)
		case closing:
			if name == field {
				flush(m[0])
			}
		default:
			flush(m[0])
			field, fieldStart = name, m[1]
		}
	}
	if cur != nil {
		return nil, fileline.Errorf(file, cur.Line, "<top> never closed")
	}
	if len(topics) == 0 {
		return nil, fmt.Errorf("%s: no topics", file)
	}
	return topics, nil
}

// Judgment is one qrels judgment.
type Judgment struct {
	Topic, DocNo string
	Rel          int
}

// ReadQrels reads "TOPIC ITER DOCNO REL" lines (plain or .gz) with
// trecfmt.ReadQrels, which rejects malformed lines and a document judged
// twice for a topic. Judgments are ordered by topic, then grade
// (highest first), then document.
func ReadQrels(file string) ([]Judgment, error) {
	r, err := datafile.Open(file)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	q, err := trecfmt.ReadQrels(r, file)
	if err != nil {
		return nil, err
	}
	var out []Judgment
	for topic, docs := range q {
		for d, rel := range docs {
			out = append(out, Judgment{Topic: topic, DocNo: d, Rel: rel})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Topic != b.Topic {
			return a.Topic < b.Topic
		}
		if a.Rel != b.Rel {
			return a.Rel > b.Rel
		}
		return a.DocNo < b.DocNo
	})
	return out, nil
}
