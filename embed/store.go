package embed

import (
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	_ "github.com/mattn/go-sqlite3" // registers the "sqlite3" driver
)

// TextHash is the SHA-256 of the exact string embedded (prefix included).
type TextHash [sha256.Size]byte

// HashText returns the key under which the vector of s is stored.
func HashText(s string) TextHash { return sha256.Sum256([]byte(s)) }

// StorePath returns where the vectors of model id live under cacheDir. One
// store per model is shared by every corpus: it is keyed by content, so two
// corpora that share a file share its vector.
func StorePath(cacheDir, modelID string) string {
	return filepath.Join(cacheDir, "dense", modelID, "vectors.db")
}

// Store persists vectors in SQLite, keyed by (model fingerprint, text hash),
// as little-endian float32 blobs. It is safe for use by one process at a
// time per file (SQLite's WAL lets readers of other processes in).
type Store struct {
	db   *sql.DB
	path string
}

// storeBatch is how many rows one transaction writes or one query reads:
// large enough to amortise the commit, small enough to keep SQL short.
const storeBatch = 500

// OpenStore opens (creating if needed) the vector store at path.
func OpenStore(path string) (*Store, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("vector store %s: %w", path, err)
	}
	db, err := sql.Open("sqlite3", "file:"+path+"?_journal_mode=WAL&_synchronous=NORMAL&_busy_timeout=10000")
	if err != nil {
		return nil, fmt.Errorf("vector store %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	const schema = `CREATE TABLE IF NOT EXISTS vectors (
		model TEXT NOT NULL,  -- Embedder.Fingerprint()
		text  BLOB NOT NULL,  -- sha256 of the text embedded, prefix included
		dim   INTEGER NOT NULL,
		vec   BLOB NOT NULL,  -- dim little-endian float32
		PRIMARY KEY (model, text)
	) WITHOUT ROWID`
	if _, err := db.Exec(schema); err != nil {
		db.Close()
		return nil, fmt.Errorf("vector store %s: %w", path, err)
	}
	return &Store{db: db, path: path}, nil
}

// Path returns the store's file.
func (s *Store) Path() string { return s.path }

// Get returns the stored vector for each key under model, nil where there is
// none. A stored vector whose length is not dim counts as missing.
func (s *Store) Get(model string, dim int, keys []TextHash) ([][]float32, error) {
	out := make([][]float32, len(keys))
	pos := make(map[TextHash][]int, len(keys))
	for i, k := range keys {
		pos[k] = append(pos[k], i)
	}
	tx, err := s.db.Begin()
	if err != nil {
		return nil, fmt.Errorf("vector store %s: %w", s.path, err)
	}
	defer tx.Rollback()
	for lo := 0; lo < len(keys); lo += storeBatch {
		chunk := keys[lo:min(lo+storeBatch, len(keys))]
		args := make([]any, 0, len(chunk)+1)
		args = append(args, model)
		q := "SELECT text, dim, vec FROM vectors WHERE model = ? AND text IN (?" + strings.Repeat(",?", len(chunk)-1) + ")"
		for _, k := range chunk {
			args = append(args, k[:])
		}
		rows, err := tx.Query(q, args...)
		if err != nil {
			return nil, fmt.Errorf("vector store %s: %w", s.path, err)
		}
		for rows.Next() {
			var key, blob []byte
			var d int
			if err := rows.Scan(&key, &d, &blob); err != nil {
				rows.Close()
				return nil, fmt.Errorf("vector store %s: %w", s.path, err)
			}
			if d != dim || len(blob) != 4*dim || len(key) != sha256.Size {
				continue
			}
			v := decodeVec(blob)
			for _, i := range pos[TextHash(key)] {
				out[i] = v
			}
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("vector store %s: %w", s.path, err)
		}
	}
	return out, nil
}

// Put stores vecs[i] under (model, keys[i]), replacing what was there.
func (s *Store) Put(model string, keys []TextHash, vecs [][]float32) error {
	if len(keys) != len(vecs) {
		return fmt.Errorf("vector store %s: %d keys for %d vectors", s.path, len(keys), len(vecs))
	}
	for lo := 0; lo < len(keys); lo += storeBatch {
		hi := min(lo+storeBatch, len(keys))
		if err := s.put(model, keys[lo:hi], vecs[lo:hi]); err != nil {
			return fmt.Errorf("vector store %s: %w", s.path, err)
		}
	}
	return nil
}

func (s *Store) put(model string, keys []TextHash, vecs [][]float32) error {
	tx, err := s.db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	st, err := tx.Prepare("INSERT OR REPLACE INTO vectors (model, text, dim, vec) VALUES (?, ?, ?, ?)")
	if err != nil {
		return err
	}
	defer st.Close()
	for i, k := range keys {
		if _, err := st.Exec(model, k[:], len(vecs[i]), encodeVec(vecs[i])); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// Count returns the number of vectors stored under model.
func (s *Store) Count(model string) (int, error) {
	var n int
	if err := s.db.QueryRow("SELECT count(*) FROM vectors WHERE model = ?", model).Scan(&n); err != nil {
		return 0, fmt.Errorf("vector store %s: %w", s.path, err)
	}
	return n, nil
}

// Close closes the database.
func (s *Store) Close() error {
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("vector store %s: %w", s.path, err)
	}
	return nil
}

func encodeVec(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func decodeVec(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}
