package models

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/retrievalbench/retrievalbench/internal/download"
)

// Derived is one field FromDir derived: its manifest key, the value, and
// the file (and key) it came from, or why it is a default.
type Derived struct {
	Field, Value, From string
}

// Warnings are things of a folder FromDir cannot honour; the model still
// runs, but its vectors may differ from what sentence-transformers makes.
type Warnings []string

// FromDir reads a model from a Hugging Face, sentence-transformers or
// Optimum export in dir, run in place (Model.Dir), and says what it derived
// from which file. Every field of the result can be overridden before use
// (a user manifest entry with "dir" does so key by key). Files:
//
//   - model.onnx or onnx/model.onnx (the graph), with model.onnx_data next to
//     it when the graph keeps its weights outside;
//   - tokenizer.json (required);
//   - config.json: hidden_size, max_position_embeddings, model_type;
//   - modules.json: the Pooling module's folder, Normalize, Dense (warned);
//   - 1_Pooling/config.json: word_embedding_dimension and the pooling mode;
//   - tokenizer_config.json: padding_side;
//   - sentence_bert_config.json: max_seq_length;
//   - config_sentence_transformers.json: prompts (query, passage/document);
//   - README.md: the licence of its front matter.
//
// The files' SHA-256 are computed here: goldens and vector stores key on them.
// A field the folder does not say is left zero with a warning (a
// dimension, say): set it before use.
func FromDir(dir string) (Model, []Derived, Warnings, error) {
	return FromDirWith(dir, "")
}

// FromDirWith is FromDir with the graph's slash-separated path inside dir
// given ("onnx/model_quantized.onnx"); "" looks for model.onnx, then
// onnx/model.onnx.
func FromDirWith(dir, onnxPath string) (Model, []Derived, Warnings, error) {
	m, d, err := readDir(dir, onnxPath)
	if err != nil {
		return Model{}, nil, nil, err
	}
	if err := hashFiles(&m); err != nil {
		return Model{}, nil, nil, err
	}
	return m, d.fields, d.warnings, nil
}

// derivation collects what readDir derived.
type derivation struct {
	fields   []Derived
	warnings Warnings
}

func (d *derivation) set(field string, value any, from string) {
	d.fields = append(d.fields, Derived{Field: field, Value: fmt.Sprint(value), From: from})
}

func (d *derivation) warn(format string, args ...any) {
	d.warnings = append(d.warnings, fmt.Sprintf(format, args...))
}

// readDir derives a model from the folder without hashing its files.
// onnxPath, when set, is the graph's path inside dir.
func readDir(dir, onnxPath string) (Model, *derivation, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Model{}, nil, err
	}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		return Model{}, nil, fmt.Errorf("model folder %s: not a directory", dir)
	}
	d := &derivation{}
	m := Model{Kind: KindONNX, Dir: abs, Origin: abs}
	m.ID = folderID(abs)
	d.set("id", m.ID, "the folder's name")

	// The graph.
	if onnxPath == "" {
		for _, p := range []string{"model.onnx", "onnx/model.onnx"} {
			if isFile(filepath.Join(abs, p)) {
				onnxPath = p
				break
			}
		}
	}
	if onnxPath == "" {
		return Model{}, nil, fmt.Errorf("model folder %s: no model.onnx or onnx/model.onnx (found: %s); name the graph with a files entry {\"name\": %q, \"path\": ...} or `models add -onnx PATH`",
			dir, strings.Join(onnxFiles(abs), ", "), ModelFile)
	}
	if !isFile(filepath.Join(abs, filepath.FromSlash(onnxPath))) {
		return Model{}, nil, fmt.Errorf("model folder %s: %s: no such file", dir, onnxPath)
	}
	m.Files = append(m.Files, File{Name: ModelFile, Path: onnxPath})
	d.set("files."+ModelFile, onnxPath, "found in the folder")
	for _, ext := range []string{"_data", ".data"} {
		if p := onnxPath + ext; isFile(filepath.Join(abs, filepath.FromSlash(p))) {
			m.Files = append(m.Files, File{Name: DataFile, Path: p})
			d.set("files."+DataFile, p, "external data next to the graph")
			break
		}
	}
	tok := "tokenizer.json"
	if !isFile(filepath.Join(abs, tok)) && isFile(filepath.Join(abs, path.Dir(onnxPath), tok)) {
		tok = path.Join(path.Dir(onnxPath), tok)
	}
	if !isFile(filepath.Join(abs, filepath.FromSlash(tok))) {
		return Model{}, nil, fmt.Errorf("model folder %s: no tokenizer.json (retrievalbench reads the fast tokenizer's tokenizer.json only)", dir)
	}
	m.Files = append(m.Files, File{Name: TokenizerFile, Path: tok})
	d.set("files."+TokenizerFile, tok, "found in the folder")

	// config.json: the transformer's own settings.
	var cfg struct {
		NameOrPath  string `json:"_name_or_path"`
		ModelType   string `json:"model_type"`
		HiddenSize  int    `json:"hidden_size"`
		DModel      int    `json:"d_model"`
		NEmbd       int    `json:"n_embd"`
		MaxPos      int    `json:"max_position_embeddings"`
		PadTokenID  *int   `json:"pad_token_id"`
		Transformer string `json:"transformers_version"`
	}
	hasCfg, err := readJSON(abs, "config.json", &cfg)
	if err != nil {
		return Model{}, nil, err
	}
	hidden := max(cfg.HiddenSize, cfg.DModel, cfg.NEmbd)

	// modules.json: the sentence-transformers pipeline.
	var modules []struct {
		Path string `json:"path"`
		Type string `json:"type"`
	}
	hasModules, err := readJSON(abs, "modules.json", &modules)
	if err != nil {
		return Model{}, nil, err
	}
	poolDir, normalize := "1_Pooling", false
	for _, mod := range modules {
		switch t := mod.Type[strings.LastIndex(mod.Type, ".")+1:]; t {
		case "Pooling":
			poolDir = mod.Path
		case "Normalize":
			normalize = true
		case "Transformer", "StaticEmbedding":
		default:
			d.warn("modules.json: module %s (%s) is not run: an ONNX export of the transformer alone lacks it", t, mod.Path)
		}
	}

	// Pooling.
	var pcfg struct {
		Dim       int   `json:"word_embedding_dimension"`
		CLS       bool  `json:"pooling_mode_cls_token"`
		Mean      bool  `json:"pooling_mode_mean_tokens"`
		Max       bool  `json:"pooling_mode_max_tokens"`
		SqrtLen   bool  `json:"pooling_mode_mean_sqrt_len_tokens"`
		Weighted  bool  `json:"pooling_mode_weightedmean_tokens"`
		LastToken bool  `json:"pooling_mode_lasttoken"`
		Include   *bool `json:"include_prompt"`
	}
	poolFile := path.Join(poolDir, "config.json")
	hasPool, err := readJSON(abs, poolFile, &pcfg)
	if err != nil {
		return Model{}, nil, err
	}
	switch {
	case !hasPool:
		m.Pooling = PoolMean
		d.set("pooling", m.Pooling, "default (no "+poolFile+"; sentence-transformers' default is mean)")
	case pcfg.CLS && !pcfg.Mean && !pcfg.Max && !pcfg.SqrtLen && !pcfg.Weighted && !pcfg.LastToken:
		m.Pooling = PoolCLS
		d.set("pooling", m.Pooling, poolFile+": pooling_mode_cls_token")
	case pcfg.Mean && !pcfg.CLS && !pcfg.Max && !pcfg.SqrtLen && !pcfg.Weighted && !pcfg.LastToken:
		m.Pooling = PoolMean
		d.set("pooling", m.Pooling, poolFile+": pooling_mode_mean_tokens")
	case pcfg.LastToken && !pcfg.CLS && !pcfg.Mean && !pcfg.Max && !pcfg.SqrtLen && !pcfg.Weighted:
		m.Pooling = PoolLastToken
		d.set("pooling", m.Pooling, poolFile+": pooling_mode_lasttoken")
	default:
		return Model{}, nil, fmt.Errorf("model folder %s: %s asks for a pooling retrievalbench does not run (cls %v, mean %v, max %v, mean_sqrt_len %v, weightedmean %v, lasttoken %v); supported: cls, mean, lasttoken",
			dir, poolFile, pcfg.CLS, pcfg.Mean, pcfg.Max, pcfg.SqrtLen, pcfg.Weighted, pcfg.LastToken)
	}
	if pcfg.Include != nil && !*pcfg.Include {
		d.warn("%s: include_prompt false is not honoured: the prompt's tokens are pooled with the text's", poolFile)
	}

	// Dimension.
	switch {
	case pcfg.Dim > 0:
		m.Dimension = pcfg.Dim
		d.set("dimension", m.Dimension, poolFile+": word_embedding_dimension")
	case hidden > 0:
		m.Dimension = hidden
		d.set("dimension", m.Dimension, "config.json: hidden_size")
	default:
		// Left 0: a manifest entry may give it; FromDir asks for it.
		d.warn("no dimension: neither %s nor config.json says it", poolFile)
	}
	if hidden > 0 && pcfg.Dim > 0 && hidden != pcfg.Dim {
		d.warn("%s: word_embedding_dimension %d differs from config.json's hidden_size %d", poolFile, pcfg.Dim, hidden)
	}

	// Max tokens.
	var sb struct {
		MaxSeq    int  `json:"max_seq_length"`
		LowerCase bool `json:"do_lower_case"`
	}
	hasSB, err := readJSON(abs, "sentence_bert_config.json", &sb)
	if err != nil {
		return Model{}, nil, err
	}
	switch {
	case hasSB && sb.MaxSeq > 0:
		m.MaxTokens = sb.MaxSeq
		m.MaxTokensNote = "sentence_bert_config.json: max_seq_length"
		d.set("max_tokens", m.MaxTokens, m.MaxTokensNote)
	case cfg.MaxPos > 0:
		m.MaxTokens = cfg.MaxPos
		from := "config.json: max_position_embeddings"
		// RoBERTa-style models number positions from pad_token_id+1, so two
		// of their positions are never a token's.
		if offsetPositions[cfg.ModelType] {
			m.MaxTokens -= 2
			from += " − 2 (" + cfg.ModelType + " positions start after the padding id)"
		}
		m.MaxTokens = min(m.MaxTokens, 8192)
		m.MaxTokensNote = from
		d.set("max_tokens", m.MaxTokens, from)
	default:
		m.MaxTokens = 512
		d.set("max_tokens", m.MaxTokens, "default (neither sentence_bert_config.json nor config.json says it)")
	}
	if sb.LowerCase {
		d.warn("sentence_bert_config.json: do_lower_case is not applied outside tokenizer.json's normalizer")
	}

	// Padding side: decoder exports often pad on the left.
	var tc struct {
		PaddingSide string `json:"padding_side"`
	}
	if _, err := readJSON(abs, "tokenizer_config.json", &tc); err != nil {
		return Model{}, nil, err
	}
	if tc.PaddingSide == PadLeft {
		m.PaddingSide = PadLeft
		d.set("padding_side", PadLeft, "tokenizer_config.json: padding_side")
	}

	// Prompts.
	var st struct {
		Prompts       map[string]string `json:"prompts"`
		DefaultPrompt *string           `json:"default_prompt_name"`
		Similarity    string            `json:"similarity_fn_name"`
	}
	if _, err := readJSON(abs, "config_sentence_transformers.json", &st); err != nil {
		return Model{}, nil, err
	}
	const stFile = "config_sentence_transformers.json"
	if p, ok := st.Prompts["query"]; ok {
		m.QueryPrefix = p
		d.set("query_prefix", fmt.Sprintf("%q", p), stFile+": prompts.query")
	} else {
		d.set("query_prefix", `""`, "no query prompt")
	}
	passage := false
	for _, k := range []string{"passage", "document", "doc", "corpus"} {
		if p, ok := st.Prompts[k]; ok {
			m.PassagePrefix, passage = p, true
			d.set("passage_prefix", fmt.Sprintf("%q", p), stFile+": prompts."+k)
			break
		}
	}
	if !passage {
		if st.DefaultPrompt != nil && st.Prompts[*st.DefaultPrompt] != "" {
			m.PassagePrefix = st.Prompts[*st.DefaultPrompt]
			d.set("passage_prefix", fmt.Sprintf("%q", m.PassagePrefix), stFile+": the default prompt "+*st.DefaultPrompt)
		} else {
			d.set("passage_prefix", `""`, "no passage or document prompt")
		}
	}
	switch st.Similarity {
	case "", "cosine":
	default:
		d.warn("%s: similarity %q: retrievalbench ranks by cosine similarity", stFile, st.Similarity)
	}
	if !normalize && hasModules {
		d.warn("modules.json has no Normalize: vectors are L2-normalised anyway (retrievalbench ranks by cosine similarity)")
	}

	// Words about the model.
	m.Name = "local export " + filepath.Base(abs)
	if cfg.NameOrPath != "" {
		m.Name += " (config.json: " + cfg.NameOrPath + ")"
	}
	m.ModelCard = abs
	if isFile(filepath.Join(abs, "README.md")) {
		m.ModelCard = filepath.Join(abs, "README.md")
	}
	m.Licence = "not stated (local folder)"
	if l := readmeLicence(filepath.Join(abs, "README.md")); l != "" {
		m.Licence = l
		d.set("licence", l, "README.md: license")
	} else {
		d.set("licence", m.Licence, "no license in README.md")
	}
	if !hasCfg {
		d.warn("no config.json")
	}
	return m, d, nil
}

// offsetPositions are the model types whose position ids start after the
// padding id (max_position_embeddings = max tokens + 2).
var offsetPositions = map[string]bool{"roberta": true, "xlm-roberta": true, "mpnet": true, "camembert": true, "longformer": true}

// folderID turns a folder name into a model id: lower case, and '-' for
// every character an id may not hold.
func folderID(dir string) string {
	b := []byte(strings.ToLower(filepath.Base(dir)))
	for i, c := range b {
		if c == '/' || c == '\\' || c == '.' || c == ' ' {
			b[i] = '-'
		}
	}
	if len(b) == 0 {
		return "model"
	}
	return string(b)
}

// readJSON decodes dir/name into v when the file exists; a broken file is
// a file:line error.
func readJSON(dir, name string, v any) (bool, error) {
	p := filepath.Join(dir, filepath.FromSlash(name))
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return false, jsonErr(p, data, 0, err)
	}
	return true, nil
}

// readmeLicence returns the "license:" of a model card's YAML front matter.
func readmeLicence(p string) string {
	f, err := os.Open(p)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if !sc.Scan() || strings.TrimSpace(sc.Text()) != "---" {
		return ""
	}
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimSpace(line) == "---" {
			break
		}
		if v, ok := strings.CutPrefix(line, "license:"); ok {
			return strings.Trim(strings.TrimSpace(v), `"'`)
		}
	}
	return ""
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

func onnxFiles(dir string) []string {
	var out []string
	for _, sub := range []string{".", "onnx"} {
		ents, _ := os.ReadDir(filepath.Join(dir, sub))
		for _, e := range ents {
			if strings.HasSuffix(e.Name(), ".onnx") {
				out = append(out, path.Join(sub, e.Name()))
			}
		}
	}
	if len(out) == 0 {
		return []string{"none"}
	}
	return out
}

// hashFiles fills in the SHA-256 and size of m's files that lack them,
// reading them in m.Dir.
func hashFiles(m *Model) error {
	for i := range m.Files {
		f := &m.Files[i]
		if f.SHA256 != "" {
			continue
		}
		p := m.Path("", f.Name)
		sum, n, err := download.FileSum(p)
		if err != nil {
			return fmt.Errorf("model %s: %s: %w", m.ID, p, err)
		}
		f.SHA256, f.Size = sum, n
	}
	return nil
}
