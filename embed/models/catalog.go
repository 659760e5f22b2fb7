package models

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/retrievalbench/retrievalbench/fileline"
	"github.com/retrievalbench/retrievalbench/internal/datafile"
)

// EnvManifest names the environment variable that lists user model
// manifests (separated like PATH) merged with the embedded one by Default.
// Commands set it from their -model-manifest flag, so the `go test` runs
// that promote starts see the same models.
const EnvManifest = "RETRIEVALBENCH_MODEL_MANIFEST"

// Catalog is a set of models with unique ids: the embedded manifest's,
// then those of user manifests, in order. It is a value: build one with
// Builtin or LoadCatalog, or use Default.
type Catalog struct {
	models []Model
	where  map[string]string // id → where it is described ("file:line" or the embedded manifest)
	files  []string          // user manifests read, in order
}

// Builtin returns the catalog of the embedded manifest alone.
func Builtin() (*Catalog, error) {
	ms, err := Manifest()
	if err != nil {
		return nil, err
	}
	c := &Catalog{where: map[string]string{}}
	for _, m := range ms {
		c.models = append(c.models, m)
		c.where[m.ID] = ManifestName
	}
	return c, nil
}

// LoadCatalog returns the embedded manifest merged with the user manifests
// at paths (empty paths are skipped). A user model whose id is already
// taken is an error naming both places; a malformed manifest is a
// file:line error (fileline.Error).
func LoadCatalog(paths ...string) (*Catalog, error) {
	c, err := Builtin()
	if err != nil {
		return nil, err
	}
	for _, p := range paths {
		if p == "" {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("model manifest: %w", err)
		}
		if err := c.add(p, data); err != nil {
			return nil, err
		}
		c.files = append(c.files, p)
	}
	return c, nil
}

var (
	defaultMu   sync.Mutex
	defaultEnv  string
	defaultCat  *Catalog
	defaultErr  error
	defaultRead bool
)

// Default returns LoadCatalog of the manifests $RETRIEVALBENCH_MODEL_MANIFEST
// lists, read once per value of the variable.
func Default() (*Catalog, error) {
	env := os.Getenv(EnvManifest)
	defaultMu.Lock()
	defer defaultMu.Unlock()
	if !defaultRead || env != defaultEnv {
		defaultCat, defaultErr = LoadCatalog(filepath.SplitList(env)...)
		if defaultErr != nil {
			defaultErr = fmt.Errorf("%w (from $%s)", defaultErr, EnvManifest)
		}
		defaultEnv, defaultRead = env, true
	}
	return defaultCat, defaultErr
}

// Models returns the catalog's models, embedded ones first.
func (c *Catalog) Models() []Model { return append([]Model(nil), c.models...) }

// Files returns the user manifests the catalog read, in order.
func (c *Catalog) Files() []string { return append([]string(nil), c.files...) }

// IDs returns the model ids in catalog order.
func (c *Catalog) IDs() []string {
	ids := make([]string, len(c.models))
	for i, m := range c.models {
		ids[i] = m.ID
	}
	return ids
}

// Lookup returns the model with the given id, wrapping ErrUnknownModel.
func (c *Catalog) Lookup(id string) (Model, error) {
	for _, m := range c.models {
		if m.ID == id {
			return m, nil
		}
	}
	return Model{}, fmt.Errorf("%w %q (known: %s; a user manifest adds models: -model-manifest or $%s)",
		ErrUnknownModel, id, strings.Join(c.IDs(), ", "), EnvManifest)
}

// Where returns where the model id is described: the embedded manifest's
// name or a user manifest's "file:line".
func (c *Catalog) Where(id string) string { return c.where[id] }

// Add puts a model described in Go (say, from FromDir) into the catalog,
// checking it like a user manifest's entry.
func (c *Catalog) Add(m Model) error {
	if err := m.check(true); err != nil {
		return fmt.Errorf("model %q: %w", m.ID, err)
	}
	if w, ok := c.where[m.ID]; ok {
		return fmt.Errorf("model %q: id already taken by %s", m.ID, w)
	}
	c.models = append(c.models, m)
	c.where[m.ID] = m.Origin
	return nil
}

// CheckUser checks m as an entry of a user manifest would be
// checked, without a catalog.
func CheckUser(m Model) error {
	if err := m.check(true); err != nil {
		return fmt.Errorf("model %q: %w", m.ID, err)
	}
	return nil
}

// userManifest is the top level of a user manifest: the embedded schema,
// whose onnxruntime entry is the suite's own and may not be overridden.
type userManifest struct {
	ONNXRuntime json.RawMessage   `json:"onnxruntime"`
	Models      []json.RawMessage `json:"models"`
}

// ParseUser reads a user manifest (name is its path, used in errors and to
// resolve relative dirs) and returns its models, without merging.
func ParseUser(name string, data []byte) ([]Model, error) {
	c := &Catalog{where: map[string]string{}}
	if err := c.add(name, data); err != nil {
		return nil, err
	}
	return c.models, nil
}

// add reads the user manifest data (from file name) into c.
func (c *Catalog) add(name string, data []byte) error {
	var top userManifest
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&top); err != nil {
		return jsonErr(name, data, 0, err)
	}
	if len(top.ONNXRuntime) > 0 {
		return fileline.Errorf(name, keyLine(data, 0, "onnxruntime"), "onnxruntime: a user manifest lists models only; the ONNX Runtime is the embedded manifest's")
	}
	if len(top.Models) == 0 {
		return fileline.Errorf(name, 1, `no models (want {"models": [ ... ]})`)
	}
	offs := entryOffsets(data)
	for i, raw := range top.Models {
		off := 0
		if i < len(offs) {
			off = offs[i]
		}
		line := 1 + bytes.Count(data[:off], []byte("\n"))
		m, err := userModel(name, data, off, raw)
		if err != nil {
			var fe *fileline.Error
			if errors.As(err, &fe) {
				return err
			}
			return fileline.Errorf(name, line, "model %d (%q): %v", i+1, m.ID, err)
		}
		m.Origin = name
		if w, ok := c.where[m.ID]; ok {
			return fileline.Errorf(name, line, "model %d: id %q is already taken by %s; give this model another id", i+1, m.ID, w)
		}
		c.models = append(c.models, m)
		c.where[m.ID] = fmt.Sprintf("%s:%d", name, line)
	}
	return nil
}

// userModel decodes one entry of a user manifest. An entry with a "dir" is
// first derived from the folder (FromDir's rules); every key the entry
// gives overrides the derived value.
func userModel(name string, data []byte, off int, raw json.RawMessage) (Model, error) {
	var probe Model
	if err := strictDecode(raw, &probe); err != nil {
		return probe, jsonErr(name, data, off, err)
	}
	m := probe
	if probe.Dir != "" {
		dir := probe.Dir
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(filepath.Dir(name), dir)
		}
		onnxPath := ""
		if f, ok := probe.File(ModelFile); ok {
			onnxPath = f.Path
		}
		base, _, err := readDir(dir, onnxPath)
		if err != nil {
			return probe, err
		}
		if err := strictDecode(raw, &base); err != nil { // the entry's keys over the derived ones
			return probe, jsonErr(name, data, off, err)
		}
		base.Dir = dir
		if err := hashFiles(&base); err != nil {
			return probe, err
		}
		m = base
	}
	if err := m.check(true); err != nil {
		return m, err
	}
	return m, nil
}

func strictDecode(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// jsonErr turns a decoding error of the JSON at data[off:] into a
// file:line error; an unknown field is placed at its key.
func jsonErr(name string, data []byte, off int, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fileline.Errorf(name, lineAt(data, off+int(se.Offset)), "%v", err)
	case errors.As(err, &te):
		return fileline.Errorf(name, lineAt(data, off+int(te.Offset)), "%v", err)
	}
	if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return fileline.Errorf(name, keyLine(data, off, strings.Trim(f, `"`)), "unknown field %s", f)
	}
	if off == 0 {
		return datafile.JSONError(name, data, err)
	}
	return fileline.Errorf(name, lineAt(data, off), "%v", err)
}

func lineAt(data []byte, off int) int {
	off = min(max(off, 0), len(data))
	return 1 + bytes.Count(data[:off], []byte("\n"))
}

// keyLine is the line of the first "key" at or after off (off's line when
// absent).
func keyLine(data []byte, off int, key string) int {
	off = min(max(off, 0), len(data))
	if i := bytes.Index(data[off:], []byte(`"`+key+`"`)); i >= 0 {
		return lineAt(data, off+i)
	}
	return lineAt(data, off)
}

// entryOffsets returns the byte offset of each element of the top-level
// "models" array (nil when the file does not have that shape; errors are
// reported by the strict decode).
func entryOffsets(data []byte) []int {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil
		}
		if k != "models" {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return nil
			}
			continue
		}
		if t, err := dec.Token(); err != nil || t != json.Delim('[') {
			return nil
		}
		var offs []int
		for dec.More() {
			start := int(dec.InputOffset())
			for start < len(data) && strings.ContainsRune(" \t\r\n,", rune(data[start])) {
				start++
			}
			offs = append(offs, start)
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				if errors.Is(err, io.EOF) {
					break
				}
				return offs
			}
		}
		return offs
	}
	return nil
}
