//go:build linux && !rbsqltok

package bm25

/*
#include <stdlib.h>
#include <string.h>

// The SQLite C API that mattn/go-sqlite3 compiles into the binary, declared
// here (its header is not on this package's include path) and referenced
// weakly: cgo links this package's C alone first, where they are undefined;
// the final link resolves them to mattn/go-sqlite3's, and rbTokOpen checks
// that it did.
typedef struct sqlite3 sqlite3;
typedef struct sqlite3_stmt sqlite3_stmt;
#pragma weak sqlite3_open_v2
#pragma weak sqlite3_close_v2
#pragma weak sqlite3_prepare_v2
#pragma weak sqlite3_bind_pointer
#pragma weak sqlite3_step
#pragma weak sqlite3_finalize
extern int sqlite3_open_v2(const char*, sqlite3**, int, const char*);
extern int sqlite3_close_v2(sqlite3*);
extern int sqlite3_prepare_v2(sqlite3*, const char*, int, sqlite3_stmt**, const char**);
extern int sqlite3_bind_pointer(sqlite3_stmt*, int, void*, const char*, void(*)(void*));
extern int sqlite3_step(sqlite3_stmt*);
extern int sqlite3_finalize(sqlite3_stmt*);

// FTS5's public tokenizer API (fts5.h), the members used here.
typedef struct Fts5Tokenizer Fts5Tokenizer;
typedef struct fts5_tokenizer {
	int (*xCreate)(void*, const char **azArg, int nArg, Fts5Tokenizer **ppOut);
	void (*xDelete)(Fts5Tokenizer*);
	int (*xTokenize)(Fts5Tokenizer*, void *pCtx, int flags, const char *pText, int nText,
		int (*xToken)(void *pCtx, int tflags, const char *pToken, int nToken, int iStart, int iEnd));
} fts5_tokenizer;
typedef struct fts5_api {
	int iVersion;
	void *xCreateTokenizer;
	int (*xFindTokenizer)(struct fts5_api*, const char *zName, void **ppUserData, fts5_tokenizer *pTokenizer);
} fts5_api;

#define RB_OPEN_READWRITE 0x02
#define RB_OPEN_CREATE 0x04
#define RB_OPEN_MEMORY 0x80
#define RB_TOKENIZE_DOCUMENT 0x0004
#define RB_MAX_TOKEN_SIZE 32768

typedef struct rbTok {
	sqlite3 *db;
	fts5_tokenizer api;
	Fts5Tokenizer *tok;
} rbTok;

// rbTokOpen makes a tokenizer named azArg[0] with the arguments after it,
// as FTS5 makes one for tokenize='azArg[0] azArg[1] …'. It returns NULL and
// a message in *zErr (static) on failure.
static rbTok *rbTokOpen(const char **azArg, int nArg, const char **zErr) {
	fts5_api *pApi = 0;
	sqlite3_stmt *pStmt = 0;
	void *pUser = 0;
	rbTok *t;
	if (!sqlite3_open_v2 || !sqlite3_close_v2 || !sqlite3_prepare_v2 || !sqlite3_bind_pointer || !sqlite3_step || !sqlite3_finalize) {
		*zErr = "the SQLite C API is not linked in";
		return 0;
	}
	t = calloc(1, sizeof(rbTok));
	if (!t) {
		*zErr = "out of memory";
		return 0;
	}
	if (sqlite3_open_v2(":memory:", &t->db, RB_OPEN_READWRITE | RB_OPEN_CREATE | RB_OPEN_MEMORY, 0) != 0) {
		*zErr = "opening an in-memory SQLite database";
		goto fail;
	}
	if (sqlite3_prepare_v2(t->db, "SELECT fts5(?1)", -1, &pStmt, 0) != 0) {
		*zErr = "SELECT fts5(?1): SQLite has no FTS5";
		goto fail;
	}
	sqlite3_bind_pointer(pStmt, 1, (void*)&pApi, "fts5_api_ptr", 0);
	sqlite3_step(pStmt);
	sqlite3_finalize(pStmt);
	if (!pApi) {
		*zErr = "FTS5 gave no fts5_api";
		goto fail;
	}
	if (pApi->xFindTokenizer(pApi, azArg[0], &pUser, &t->api) != 0) {
		*zErr = "FTS5 has no such tokenizer";
		goto fail;
	}
	if (t->api.xCreate(pUser, azArg + 1, nArg - 1, &t->tok) != 0) {
		*zErr = "the tokenizer rejected its arguments";
		goto fail;
	}
	return t;
fail:
	if (t->db) sqlite3_close_v2(t->db);
	free(t);
	return 0;
}

static void rbTokClose(rbTok *t) {
	if (t->tok) t->api.xDelete(t->tok);
	sqlite3_close_v2(t->db);
	free(t);
}

// rbOut collects tokens as a 4-byte little-endian length and the bytes.
typedef struct rbOut {
	char *buf;
	int n, cap;
} rbOut;

static int rbToken(void *pCtx, int tflags, const char *pToken, int nToken, int iStart, int iEnd) {
	rbOut *o = (rbOut*)pCtx;
	(void)tflags; (void)iStart; (void)iEnd;
	// What FTS5 stores (fts5StorageInsertCallback).
	if (nToken > RB_MAX_TOKEN_SIZE) nToken = RB_MAX_TOKEN_SIZE;
	if (o->n + 4 + nToken > o->cap) {
		int cap = 2 * o->cap + 4 + nToken;
		char *b = realloc(o->buf, cap);
		if (!b) return 7; // SQLITE_NOMEM
		o->buf = b;
		o->cap = cap;
	}
	o->buf[o->n] = nToken & 0xff;
	o->buf[o->n+1] = (nToken >> 8) & 0xff;
	o->buf[o->n+2] = (nToken >> 16) & 0xff;
	o->buf[o->n+3] = (nToken >> 24) & 0xff;
	memcpy(o->buf + o->n + 4, pToken, nToken);
	o->n += 4 + nToken;
	return 0;
}

// rbTokenize tokenizes text as FTS5 tokenizes a row's column; the tokens
// are in o (which the caller frees).
static int rbTokenize(rbTok *t, const char *text, int n, rbOut *o) {
	return t->api.xTokenize(t->tok, o, RB_TOKENIZE_DOCUMENT, text, n, rbToken);
}
*/
import "C"

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"unsafe"
)

// ftsTokenizer is one of FTS5's own tokenizers, run by its C code directly
// (no table, no SQL): the tokens it gives a text are the tokens FTS5
// indexes for that text in a column with the same tokenize= argument. Not
// safe for concurrent use.
type ftsTokenizer struct {
	t *C.rbTok
}

// newFTSTokenizer makes the tokenizer of an FTS5 tokenize= argument.
func newFTSTokenizer(tokenize string) (*ftsTokenizer, error) {
	args, err := tokenizeArgs(tokenize)
	if err != nil {
		return nil, err
	}
	cargs := make([]*C.char, len(args))
	for i, a := range args {
		cargs[i] = C.CString(a)
	}
	defer func() {
		for _, a := range cargs {
			C.free(unsafe.Pointer(a))
		}
	}()
	arr := (**C.char)(C.malloc(C.size_t(len(cargs)) * C.size_t(unsafe.Sizeof(cargs[0]))))
	defer C.free(unsafe.Pointer(arr))
	copy(unsafe.Slice(arr, len(cargs)), cargs)
	var zErr *C.char
	t := C.rbTokOpen(arr, C.int(len(cargs)), &zErr)
	if t == nil {
		return nil, fmt.Errorf("FTS5 tokenizer %q: %s", tokenize, C.GoString(zErr))
	}
	return &ftsTokenizer{t: t}, nil
}

// tokens returns FTS5's tokens of text, in order.
func (f *ftsTokenizer) tokens(text string) ([]string, error) {
	if f.t == nil {
		return nil, errors.New("FTS5 tokenizer closed")
	}
	if text == "" {
		return []string{}, nil
	}
	var o C.rbOut
	defer C.free(unsafe.Pointer(o.buf))
	ctext := C.CString(text)
	defer C.free(unsafe.Pointer(ctext))
	if rc := C.rbTokenize(f.t, ctext, C.int(len(text)), &o); rc != 0 {
		return nil, fmt.Errorf("FTS5 tokenizer: error %d on %q", int(rc), text)
	}
	b := C.GoBytes(unsafe.Pointer(o.buf), o.n)
	out := []string{}
	for len(b) >= 4 {
		n := int(binary.LittleEndian.Uint32(b))
		out = append(out, string(b[4:4+n]))
		b = b[4+n:]
	}
	return out, nil
}

func (f *ftsTokenizer) Close() error {
	if f.t != nil {
		C.rbTokClose(f.t)
		f.t = nil
	}
	return nil
}

// tokenizeArgs splits an FTS5 tokenize= argument into the tokenizer's name
// and arguments as FTS5 does: words separated by spaces, a word in single
// quotes taken whole with ” for a quote.
func tokenizeArgs(s string) ([]string, error) {
	var args []string
	for i := 0; i < len(s); {
		switch {
		case s[i] == ' ':
			i++
		case s[i] == '\'':
			var b strings.Builder
			j := i + 1
			for {
				if j >= len(s) {
					return nil, fmt.Errorf("tokenize %q: unclosed quote", s)
				}
				if s[j] == '\'' {
					if j+1 < len(s) && s[j+1] == '\'' {
						b.WriteByte('\'')
						j += 2
						continue
					}
					break
				}
				b.WriteByte(s[j])
				j++
			}
			args = append(args, b.String())
			i = j + 1
		default:
			j := strings.IndexByte(s[i:], ' ')
			if j < 0 {
				j = len(s) - i
			}
			args = append(args, s[i:i+j])
			i += j
		}
	}
	if len(args) == 0 {
		return nil, fmt.Errorf("tokenize %q: no tokenizer", s)
	}
	return args, nil
}
