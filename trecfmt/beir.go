package trecfmt

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/retrievalbench/retrievalbench/internal/atomicfile"
)

// BEIRDoc is one line of a BEIR corpus.jsonl.
type BEIRDoc struct {
	ID    string `json:"_id"`
	Title string `json:"title"`
	Text  string `json:"text"`
}

// BEIRQuery is one line of a BEIR queries.jsonl.
type BEIRQuery struct {
	ID   string `json:"_id"`
	Text string `json:"text"`
}

// BEIR is a BEIR dataset folder: its corpus, its queries and the judgments
// of one split.
type BEIR struct {
	Corpus  []BEIRDoc
	Queries []BEIRQuery
	Qrels   Qrels
}

// maxJSONLine is the longest corpus or query line accepted (documents can
// be long).
const maxJSONLine = 64 << 20

// jsonLines calls fn with each non-blank line of r and its line number.
func jsonLines(r io.Reader, name string, fn func(line int, b []byte) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxJSONLine)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		if err := fn(line, b); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return syntaxErrorf(name, line+1, "line longer than %d bytes", maxJSONLine)
		}
		return fmt.Errorf("reading %s: %w", name, err)
	}
	return nil
}

// beirLine is the union of corpus and query lines. _id may be a JSON string
// or number (some BEIR exports write numeric ids).
type beirLine struct {
	ID    json.RawMessage `json:"_id"`
	Title *string         `json:"title"`
	Text  *string         `json:"text"`
}

func decodeBEIRLine(name string, line int, b []byte) (id string, l beirLine, err error) {
	if err := json.Unmarshal(b, &l); err != nil {
		return "", l, syntaxErrorf(name, line, "invalid JSON object: %v", err)
	}
	switch {
	case len(l.ID) == 0 || string(l.ID) == "null":
		return "", l, syntaxErrorf(name, line, "missing _id")
	case l.ID[0] == '"':
		if err := json.Unmarshal(l.ID, &id); err != nil {
			return "", l, syntaxErrorf(name, line, "_id: %v", err)
		}
	default:
		var n json.Number
		if err := json.Unmarshal(l.ID, &n); err != nil {
			return "", l, syntaxErrorf(name, line, "_id %s is neither a string nor a number", l.ID)
		}
		id = n.String()
	}
	if strings.TrimSpace(id) == "" {
		return "", l, syntaxErrorf(name, line, "empty _id")
	}
	return id, l, nil
}

// ReadBEIRCorpus streams a BEIR corpus.jsonl: one JSON object per line with
// "_id" (non-empty, unique), "title" (optional) and "text" (required, may be
// empty). fn is called for each document in file order; an error from fn
// stops reading and is returned.
func ReadBEIRCorpus(r io.Reader, name string, fn func(BEIRDoc) error) error {
	seen := make(map[string]int)
	return jsonLines(r, name, func(line int, b []byte) error {
		id, l, err := decodeBEIRLine(name, line, b)
		if err != nil {
			return err
		}
		if l.Text == nil {
			return syntaxErrorf(name, line, "document %q has no text field", id)
		}
		if first, dup := seen[id]; dup {
			return syntaxErrorf(name, line, "duplicate document id %q (first on line %d)", id, first)
		}
		seen[id] = line
		d := BEIRDoc{ID: id, Text: *l.Text}
		if l.Title != nil {
			d.Title = *l.Title
		}
		return fn(d)
	})
}

// ReadBEIRQueries reads a BEIR queries.jsonl: one JSON object per line with
// a unique non-empty "_id" and a non-empty "text".
func ReadBEIRQueries(r io.Reader, name string) ([]BEIRQuery, error) {
	seen := make(map[string]int)
	var qs []BEIRQuery
	err := jsonLines(r, name, func(line int, b []byte) error {
		id, l, err := decodeBEIRLine(name, line, b)
		if err != nil {
			return err
		}
		if l.Text == nil || strings.TrimSpace(*l.Text) == "" {
			return syntaxErrorf(name, line, "query %q has empty text", id)
		}
		if first, dup := seen[id]; dup {
			return syntaxErrorf(name, line, "duplicate query id %q (first on line %d)", id, first)
		}
		seen[id] = line
		qs = append(qs, BEIRQuery{ID: id, Text: *l.Text})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return qs, nil
}

// ReadBEIRQrels reads a BEIR qrels/<split>.tsv: a header line
// ("query-id<TAB>corpus-id<TAB>score") followed by tab-separated lines of a
// query id, a document id and an integer score. Empty ids, a non-integer
// score, a wrong number of columns or a document judged twice for a query
// are errors.
func ReadBEIRQrels(r io.Reader, name string) (Qrels, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	qids := make(interner)
	qrels := make(Qrels)
	line := 0
	header := false
	for sc.Scan() {
		line++
		b := bytes.TrimRight(sc.Bytes(), "\r")
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		f := bytes.Split(b, []byte{'\t'})
		if len(f) != 3 {
			return nil, syntaxErrorf(name, line, "%d tab-separated columns, want 3 (query-id corpus-id score)", len(f))
		}
		if !header {
			header = true
			if _, err := strconv.Atoi(string(bytes.TrimSpace(f[2]))); err != nil {
				continue // the header line
			}
			return nil, syntaxErrorf(name, line, "missing header line (query-id\\tcorpus-id\\tscore)")
		}
		q, d := bytes.TrimSpace(f[0]), bytes.TrimSpace(f[1])
		if len(q) == 0 || len(d) == 0 {
			return nil, syntaxErrorf(name, line, "empty query or document id")
		}
		grade, err := strconv.Atoi(string(bytes.TrimSpace(f[2])))
		if err != nil {
			return nil, syntaxErrorf(name, line, "score %q is not an integer", f[2])
		}
		qid := qids.get(q)
		docs := qrels[qid]
		if docs == nil {
			docs = make(map[string]int)
			qrels[qid] = docs
		}
		if _, dup := docs[string(d)]; dup {
			return nil, syntaxErrorf(name, line, "document %q judged twice for query %q", d, qid)
		}
		docs[string(d)] = grade
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, syntaxErrorf(name, line+1, "line longer than %d bytes", maxLine)
		}
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	return qrels, nil
}

// ReadBEIR reads the BEIR folder dir: corpus.jsonl, queries.jsonl and
// qrels/<split>.tsv.
func ReadBEIR(dir, split string) (*BEIR, error) {
	var b BEIR
	err := readFile(filepath.Join(dir, "corpus.jsonl"), func(f io.Reader, name string) error {
		return ReadBEIRCorpus(f, name, func(d BEIRDoc) error {
			b.Corpus = append(b.Corpus, d)
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	err = readFile(filepath.Join(dir, "queries.jsonl"), func(f io.Reader, name string) (err error) {
		b.Queries, err = ReadBEIRQueries(f, name)
		return err
	})
	if err != nil {
		return nil, err
	}
	err = readFile(filepath.Join(dir, "qrels", split+".tsv"), func(f io.Reader, name string) (err error) {
		b.Qrels, err = ReadBEIRQrels(f, name)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &b, nil
}

func readFile(path string, read func(io.Reader, string) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return read(f, path)
}

// WriteBEIR writes b as the BEIR folder dir (created if needed):
// corpus.jsonl and queries.jsonl in the order of b, qrels/<split>.tsv with
// a header and lines ordered by query and document id. Each file is written
// atomically.
func WriteBEIR(dir, split string, b *BEIR) error {
	if err := os.MkdirAll(filepath.Join(dir, "qrels"), 0o755); err != nil {
		return err
	}
	err := atomicfile.Write(filepath.Join(dir, "corpus.jsonl"), func(f io.Writer) error {
		return writeJSONLines(f, len(b.Corpus), func(i int) (string, any) { return b.Corpus[i].ID, b.Corpus[i] })
	})
	if err != nil {
		return err
	}
	err = atomicfile.Write(filepath.Join(dir, "queries.jsonl"), func(f io.Writer) error {
		return writeJSONLines(f, len(b.Queries), func(i int) (string, any) { return b.Queries[i].ID, b.Queries[i] })
	})
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, "qrels", split+".tsv"), func(f io.Writer) error {
		w := bufio.NewWriter(f)
		fmt.Fprintf(w, "query-id\tcorpus-id\tscore\n")
		for _, qid := range sortedKeys(b.Qrels) {
			docs := b.Qrels[qid]
			for _, doc := range sortedKeys(docs) {
				if strings.TrimSpace(qid) == "" || strings.TrimSpace(doc) == "" || strings.ContainsAny(qid+doc, "\t\n\r") {
					return fmt.Errorf("qrels: invalid ids %q, %q", qid, doc)
				}
				fmt.Fprintf(w, "%s\t%s\t%d\n", qid, doc, docs[doc])
			}
		}
		return w.Flush()
	})
}

func writeJSONLines(w io.Writer, n int, item func(int) (string, any)) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for i := range n {
		id, v := item(i)
		if strings.TrimSpace(id) == "" {
			return fmt.Errorf("item %d: empty _id", i)
		}
		if err := enc.Encode(v); err != nil {
			return err
		}
	}
	return bw.Flush()
}
