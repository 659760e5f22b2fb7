package bm25

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/internal/cpuclass"
	"github.com/retrievalbench/retrievalbench/internal/progress"
	"github.com/retrievalbench/retrievalbench/systems"
	"github.com/retrievalbench/retrievalbench/systems/internal/buildrec"
)

var _ systems.System = (*Index)(nil)

// Progress is logged every progressDocs docs or progressEvery, whichever
// comes first.
const (
	progressDocs  = 5000
	progressEvery = 3 * time.Second
)

// Index is a BM25 index of one corpus at a time. It is used by one goroutine
// at a time (systems.System).
type Index struct {
	cfg     Config
	opt     systems.Options
	tmpRoot string // cache root made by New when opt.CacheDir is empty

	db     *sql.DB
	search *sql.Stmt
	term   *sql.Stmt // one phrase's matches and bm25() contributions (scorer.go)
	sc     *scorer
	mem    *memIndex   // nil when the index could not be decoded (SQL then)
	toks   *termTokens // FTS5's tokens of query terms, for mem
	ids    []string    // ids[rowid-1] is the doc ID of that row
	stats  IndexStats
	built  systems.IndexReport // what IndexReport says of the last Index
}

// IndexStats describes the index built or reused by the last Index call.
type IndexStats struct {
	Path      string        // the index.db file
	Docs      int           // docs in the index
	Reused    bool          // true when a complete cached index was opened
	BuildTime time.Duration // time spent building; zero when reused
}

// New returns an Index for cfg. It fails when cfg is invalid or when SQLite
// was built without FTS5. With an empty opt.CacheDir the index lives in a
// temporary directory removed by Close.
func New(cfg Config, opt systems.Options) (*Index, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := fts5Available(); err != nil {
		return nil, err
	}
	x := &Index{cfg: cfg, opt: opt}
	if opt.CacheDir == "" {
		dir, err := os.MkdirTemp("", "bm25-")
		if err != nil {
			return nil, fmt.Errorf("bm25: temporary cache dir: %w", err)
		}
		x.tmpRoot = dir
		x.opt.CacheDir = dir
	}
	return x, nil
}

// fts5Available checks once per process that the linked SQLite has FTS5.
var fts5Available = sync.OnceValue(func() error {
	db, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		return fmt.Errorf("bm25: opening SQLite: %w", err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE VIRTUAL TABLE probe USING fts5(x)`); err != nil {
		return fmt.Errorf("bm25: SQLite has no FTS5 (%w): %s", err, noFTS5)
	}
	return nil
})

// noFTS5 says how to get FTS5, to a user of any module: the tag is a build
// tag of mattn/go-sqlite3, so it must reach every go command that builds
// this package (a test, a benchmark, go run of the CLI).
const noFTS5 = "this binary was built without the sqlite_fts5 build tag, which mattn/go-sqlite3 needs to compile FTS5 in. " +
	"Add -tags=sqlite_fts5 to the go command (go test -tags=sqlite_fts5 ./...), or set it for every go command of your shell: " +
	"export GOFLAGS=-tags=sqlite_fts5 (go env -w GOFLAGS=-tags=sqlite_fts5 keeps it for your user)"

// Config returns the configuration of x.
func (x *Index) Config() Config { return x.cfg }

// Stats returns what the last successful Index call did.
func (x *Index) Stats() IndexStats { return x.stats }

// Index opens the cached index of c or builds it. A previous corpus is
// closed first.
func (x *Index) Index(ctx context.Context, c *corpus.Corpus) error {
	x.closeDB()
	if c == nil {
		return errors.New("bm25: Index of a nil corpus")
	}
	ids, err := sortedIDs(c)
	if err != nil {
		return err
	}
	want := meta{corpusHash: c.Hash(), configHash: x.cfg.Hash(), docs: len(ids)}
	dir := filepath.Join(x.opt.CacheDir, "bm25", want.corpusHash[:16]+"-"+want.configHash[:16])
	path := filepath.Join(dir, "index.db")

	if !x.opt.NoCache {
		err := x.open(path, want, ids, false)
		if err == nil {
			x.stats = IndexStats{Path: path, Docs: len(ids), Reused: true}
			x.built = buildrec.Read(filepath.Join(dir, buildFile))
			x.logf("bm25[%s]: %s: reusing %s (%d docs, built in %v)", x.cfg.Name, c.ID, path, len(ids), x.built.BuildTime.Round(time.Millisecond))
			return nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			x.logf("bm25[%s]: %s: cached index not usable, rebuilding: %v", x.cfg.Name, c.ID, err)
		}
	}

	start := time.Now()
	if err := x.build(ctx, c, dir, path, want); err != nil {
		return fmt.Errorf("bm25[%s]: indexing %s: %w", x.cfg.Name, c.ID, err)
	}
	if err := x.open(path, want, ids, true); err != nil {
		return fmt.Errorf("bm25[%s]: opening new index of %s: %w", x.cfg.Name, c.ID, err)
	}
	x.stats = IndexStats{Path: path, Docs: len(ids), BuildTime: time.Since(start)}
	x.built = systems.IndexReport{BuildTime: x.stats.BuildTime, CPUClass: cpuclass.Current()}
	if err := buildrec.Write(filepath.Join(dir, buildFile), x.built); err != nil {
		x.logf("bm25[%s]: %s: recording the build time: %v", x.cfg.Name, c.ID, err)
	}
	return nil
}

// buildFile, next to index.db, records how long building it took and on
// which CPU class: a later run that reuses the index reports that as its
// cold cost (systems.IndexReporter).
const buildFile = "build.json"

// IndexReport says whether the last Index reused a cached index and what
// building it took, here or when it was built (systems.IndexReporter).
func (x *Index) IndexReport() systems.IndexReport { return x.built }

// sortedIDs returns the doc IDs of c sorted bytewise (SQLite's BINARY
// order), or an error naming a duplicate.
func sortedIDs(c *corpus.Corpus) ([]string, error) {
	ids := make([]string, len(c.Docs))
	for i := range c.Docs {
		ids[i] = c.Docs[i].ID
	}
	slices.Sort(ids)
	for i := 1; i < len(ids); i++ {
		if ids[i] == ids[i-1] {
			return nil, fmt.Errorf("bm25: corpus %s: duplicate doc id %q", c.ID, ids[i])
		}
	}
	return ids, nil
}

// meta is what an index records about itself to be recognised as complete
// and current.
type meta struct {
	corpusHash, configHash string
	docs                   int
}

// build writes the index of c into a temporary file in dir and renames it
// to path.
func (x *Index) build(ctx context.Context, c *corpus.Corpus, dir, path string, m meta) (err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	removeStaleTemps(dir)
	x.logf("bm25[%s]: %s: building %s (%d docs)", x.cfg.Name, c.ID, path, len(c.Docs))
	f, err := os.CreateTemp(dir, tempPattern)
	if err != nil {
		return err
	}
	tmp := f.Name()
	f.Close()
	defer func() {
		if err != nil {
			os.Remove(tmp)
		}
	}()

	db, err := sql.Open("sqlite3", fileURI(tmp, ""))
	if err != nil {
		return err
	}
	defer func() {
		if cerr := db.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	db.SetMaxOpenConns(1)
	schema := []string{
		`PRAGMA journal_mode = OFF`, // a failed build is discarded, never recovered
		`PRAGMA synchronous = OFF`,
		`CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
		`CREATE TABLE docs(rowid INTEGER PRIMARY KEY, id TEXT NOT NULL)`,
		`CREATE VIRTUAL TABLE fts USING fts5(symbol, path, body, content='', tokenize=` + sqlString(x.cfg.ftsTokenizer()) + `)`,
		// FTS5 keeps the terms of pending rows in memory and writes them out
		// as a new segment when they pass hashsize (1 MiB by default), merging
		// segments as they pile up, and 'optimize' below merges the rest into
		// one. With room for the whole corpus the commit writes the one
		// segment and 'optimize' has nothing to do; the index holds the
		// same postings, sizes and totals, so scores are unchanged.
		`INSERT INTO fts(fts, rank) VALUES('hashsize', ` + strconv.Itoa(ftsHashSize) + `)`,
	}
	for _, q := range schema {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}

	// Rows in doc-ID order: rowid order is then doc-ID order for tie breaks.
	order := make([]int, len(c.Docs))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(c.Docs[a].ID, c.Docs[b].ID) })

	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	insFTS, err := tx.PrepareContext(ctx, `INSERT INTO fts(rowid, symbol, path, body) VALUES(?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer insFTS.Close()

	start, last := time.Now(), time.Now()
	code := x.cfg.Tokenizer == TokCode
	for n, i := range order {
		d := &c.Docs[i]
		rowid := int64(n + 1)
		body := d.Text
		if d.Title != "" {
			body = d.Title + "\n" + d.Text
		}
		sym, p := d.Symbol, d.Path
		if code {
			sym, p, body = codeText(sym), codeText(p), codeText(body)
		}
		if _, err := insFTS.ExecContext(ctx, rowid, sym, p, body); err != nil {
			return fmt.Errorf("doc %q: %w", d.ID, err)
		}
		if done := n + 1; done%progressDocs == 0 || time.Since(last) >= progressEvery {
			last = time.Now()
			r := rate(done, start)
			x.logf("bm25[%s]: %s: %d/%d docs (%.0f docs/s, ETA %s)", x.cfg.Name, c.ID, done, len(order), r, progress.ETA(len(order)-done, r))
		}
	}
	// The docs rows, insertBatch per statement: one cgo call and one
	// database/sql round trip a batch. After the FTS5 rows: a statement
	// that writes several rows opens a savepoint, at which FTS5 writes its
	// pending postings out as a segment; here, once, all of them.
	var insDoc *sql.Stmt
	args := make([]any, 0, 2*insertBatch)
	for b := 0; b < len(order); b += insertBatch {
		batch := order[b:min(b+insertBatch, len(order))]
		if insDoc == nil || len(batch) < insertBatch {
			if insDoc != nil {
				insDoc.Close()
			}
			if insDoc, err = tx.PrepareContext(ctx, `INSERT INTO docs(rowid, id) VALUES`+valuesList(len(batch), 2)); err != nil {
				return err
			}
			defer insDoc.Close()
		}
		args = args[:0]
		for k, i := range batch {
			args = append(args, int64(b+k+1), c.Docs[i].ID)
		}
		if _, err := insDoc.ExecContext(ctx, args...); err != nil {
			return fmt.Errorf("docs %q to %q: %w", c.Docs[batch[0]].ID, c.Docs[batch[len(batch)-1]].ID, err)
		}
	}
	for _, kv := range [][2]string{
		{"version", indexVersion},
		{"corpus_hash", m.corpusHash},
		{"config_hash", m.configHash},
		{"docs", strconv.Itoa(m.docs)},
		{"tokenizer", x.cfg.ftsTokenizer()},
	} {
		if _, err := tx.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES(?, ?)`, kv[0], kv[1]); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	// One segment per column list: fewer b-trees to read per query term.
	if _, err := db.ExecContext(ctx, `INSERT INTO fts(fts) VALUES('optimize')`); err != nil {
		return fmt.Errorf("optimize: %w", err)
	}
	x.logf("bm25[%s]: %s: indexed %d docs in %s (%.0f docs/s)", x.cfg.Name, c.ID, len(order), time.Since(start).Round(time.Millisecond), rate(len(order), start))
	if err := db.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// insertBatch is the rows of one INSERT into docs while building.
const insertBatch = 100

// valuesList is " (?, ?), (?, ?)" for rows rows of cols columns.
func valuesList(rows, cols int) string {
	one := "(" + strings.Repeat("?, ", cols-1) + "?)"
	return " " + strings.Repeat(one+", ", rows-1) + one
}

// ftsHashSize is FTS5's hashsize while building: the bytes of pending
// postings held in memory before a segment is written. A variable so that
// tests can force many segments.
var ftsHashSize = 256 << 20

// tempPattern names the files an index is built in before the rename.
const tempPattern = "index.db.tmp-*"

// staleAfter is the age after which a temporary file is taken for the
// remains of a killed build (a build of 10 MB of source takes seconds).
const staleAfter = time.Hour

// removeStaleTemps deletes temporary files of builds that died; fresh ones
// may belong to a concurrent build and are left alone.
func removeStaleTemps(dir string) {
	matches, _ := filepath.Glob(filepath.Join(dir, tempPattern))
	for _, m := range matches {
		if info, err := os.Stat(m); err == nil && time.Since(info.ModTime()) > staleAfter {
			os.Remove(m)
		}
	}
}

func rate(n int, since time.Time) float64 {
	s := time.Since(since).Seconds()
	if s <= 0 {
		return 0
	}
	return float64(n) / s
}

// open opens the finished index at path read-only and checks that it is
// complete, intact and made for m and ids. A missing file gives an error
// wrapping fs.ErrNotExist. fresh is set for the index this process has
// just built and renamed into place: its pages are not checked again
// (PRAGMA quick_check reads every page) and its doc ids are ids, not read
// back; its meta is still checked.
func (x *Index) open(path string, m meta, ids []string, fresh bool) (err error) {
	if _, err := os.Stat(path); err != nil {
		return err
	}
	db, err := sql.Open("sqlite3", fileURI(path, "mode=ro&immutable=1"))
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			db.Close()
		}
	}()
	db.SetMaxOpenConns(1)
	if !fresh {
		var check string
		if err := db.QueryRow(`PRAGMA quick_check`).Scan(&check); err != nil {
			return fmt.Errorf("%s: quick_check: %w", path, err)
		}
		if check != "ok" {
			return fmt.Errorf("%s: quick_check: %s", path, check)
		}
	}
	got := map[string]string{}
	rows, err := db.Query(`SELECT key, value FROM meta`)
	if err != nil {
		return fmt.Errorf("%s: reading meta: %w", path, err)
	}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			rows.Close()
			return fmt.Errorf("%s: reading meta: %w", path, err)
		}
		got[k] = v
	}
	if err := rows.Close(); err != nil {
		return fmt.Errorf("%s: reading meta: %w", path, err)
	}
	for k, v := range map[string]string{
		"version":     indexVersion,
		"corpus_hash": m.corpusHash,
		"config_hash": m.configHash,
		"docs":        strconv.Itoa(m.docs),
	} {
		if got[k] != v {
			return fmt.Errorf("%s: meta %s = %q, want %q", path, k, got[k], v)
		}
	}
	stored := ids
	if !fresh {
		if stored, err = readDocIDs(db, path, len(ids)); err != nil {
			return err
		}
		if !slices.Equal(stored, ids) {
			return fmt.Errorf("%s: doc ids differ from the corpus", path)
		}
	}
	w := func(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
	score := `-bm25(fts, ` + w(x.cfg.SymbolWeight) + `, ` + w(x.cfg.PathWeight) + `, ` + w(x.cfg.BodyWeight) + `)`
	stmt, err := db.Prepare(`SELECT rowid, ` + score + ` AS score FROM fts WHERE fts MATCH ? ORDER BY score DESC, rowid LIMIT ?`)
	if err != nil {
		return fmt.Errorf("%s: preparing search: %w", path, err)
	}
	term, err := db.Prepare(`SELECT rowid, ` + score + ` FROM fts WHERE fts MATCH ?`)
	if err != nil {
		stmt.Close()
		return fmt.Errorf("%s: preparing term search: %w", path, err)
	}
	x.db, x.search, x.term, x.ids = db, stmt, term, stored
	x.sc = newScorer(len(stored))
	if mem, err := loadMemIndex(db, len(stored), [3]float64{x.cfg.SymbolWeight, x.cfg.PathWeight, x.cfg.BodyWeight}); err != nil {
		x.logf("bm25[%s]: %s: scoring through SQL (%v)", x.cfg.Name, path, err)
	} else if toks, err := newTermTokens(x.cfg.ftsTokenizer()); err != nil {
		x.logf("bm25[%s]: %s: scoring through SQL (%v)", x.cfg.Name, path, err)
	} else {
		x.mem, x.toks = mem, toks
	}
	return nil
}

// readDocIDs reads the docs table: the doc id of each rowid, in order.
func readDocIDs(db *sql.DB, path string, n int) ([]string, error) {
	stored := make([]string, 0, n)
	rows, err := db.Query(`SELECT rowid, id FROM docs ORDER BY rowid`)
	if err != nil {
		return nil, fmt.Errorf("%s: reading docs: %w", path, err)
	}
	for rows.Next() {
		var rowid int64
		var id string
		if err := rows.Scan(&rowid, &id); err != nil {
			rows.Close()
			return nil, fmt.Errorf("%s: reading docs: %w", path, err)
		}
		if rowid != int64(len(stored)+1) {
			rows.Close()
			return nil, fmt.Errorf("%s: docs: rowid %d at position %d", path, rowid, len(stored)+1)
		}
		stored = append(stored, id)
	}
	if err := rows.Close(); err != nil {
		return nil, fmt.Errorf("%s: reading docs: %w", path, err)
	}
	return stored, nil
}

// Search returns the k best docs for query, best first; ties are broken by
// doc ID ascending. A query without word characters has no hits.
func (x *Index) Search(ctx context.Context, query string, k int) ([]systems.Hit, error) {
	terms, err := x.terms(query, k)
	if len(terms) == 0 {
		return nil, err
	}
	if x.mem != nil {
		hits, ok, err := x.sc.searchMem(ctx, x, terms, k)
		if err != nil {
			return nil, fmt.Errorf("bm25[%s]: search %q: %w", x.cfg.Name, query, err)
		}
		if ok {
			return hits, nil
		}
	}
	hits, err := x.sc.search(ctx, x, terms, k)
	if err != nil {
		return nil, fmt.Errorf("bm25[%s]: search %q: %w", x.cfg.Name, query, err)
	}
	return hits, nil
}

// terms opens Search and SearchFTS5: the terms of query, none (and no
// error) for k <= 0 or a query without word characters, an error before
// Index.
func (x *Index) terms(query string, k int) ([]string, error) {
	if x.search == nil {
		return nil, errors.New("bm25: Search before Index")
	}
	if k <= 0 {
		return nil, nil
	}
	return queryTerms(x.cfg.Tokenizer, query), nil
}

// SearchFTS5 is Search ranked by FTS5's own bm25() in SQL: the reference
// that Search's ranking is checked against.
func (x *Index) SearchFTS5(ctx context.Context, query string, k int) ([]systems.Hit, error) {
	terms, err := x.terms(query, k)
	if len(terms) == 0 {
		return nil, err
	}
	rows, err := x.search.QueryContext(ctx, matchExpr(terms), k)
	if err != nil {
		return nil, fmt.Errorf("bm25[%s]: search %q: %w", x.cfg.Name, query, err)
	}
	defer rows.Close()
	var hits []systems.Hit
	for rows.Next() {
		var rowid int64
		var score float64
		if err := rows.Scan(&rowid, &score); err != nil {
			return nil, fmt.Errorf("bm25[%s]: search %q: %w", x.cfg.Name, query, err)
		}
		if rowid < 1 || rowid > int64(len(x.ids)) {
			return nil, fmt.Errorf("bm25[%s]: search %q: rowid %d outside the index", x.cfg.Name, query, rowid)
		}
		hits = append(hits, systems.Hit{DocID: x.ids[rowid-1], Score: score})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("bm25[%s]: search %q: %w", x.cfg.Name, query, err)
	}
	return hits, nil
}

// Close releases the index; a temporary cache made by New is removed.
func (x *Index) Close() error {
	err := x.closeDB()
	if x.tmpRoot != "" {
		if rerr := os.RemoveAll(x.tmpRoot); err == nil {
			err = rerr
		}
		x.tmpRoot = ""
	}
	return err
}

func (x *Index) closeDB() error {
	var errs []error
	if x.search != nil {
		errs = append(errs, x.search.Close())
	}
	if x.db != nil {
		errs = append(errs, x.db.Close())
	}
	if x.term != nil {
		errs = append(errs, x.term.Close())
	}
	if x.toks != nil {
		errs = append(errs, x.toks.Close())
	}
	x.db, x.search, x.term, x.sc, x.mem, x.toks, x.ids, x.stats = nil, nil, nil, nil, nil, nil, nil, IndexStats{}
	return errors.Join(errs...)
}

func (x *Index) logf(format string, args ...any) {
	if x.opt.Logf != nil {
		x.opt.Logf(format, args...)
	}
}

// fileURI turns a file path into an SQLite URI filename with query params.
func fileURI(path, params string) string {
	u := "file:" + (&url.URL{Path: filepath.ToSlash(path)}).EscapedPath()
	if params != "" {
		u += "?" + params
	}
	return u
}

// sqlString quotes s as an SQL string literal.
func sqlString(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// SQLiteVersion is the version of the linked SQLite library.
func SQLiteVersion() string {
	v, _, _ := sqlite3.Version()
	return v
}

// Versions names what the index runs on, for golden files.
func (x *Index) Versions() map[string]string {
	return map[string]string{"sqlite": SQLiteVersion()}
}
