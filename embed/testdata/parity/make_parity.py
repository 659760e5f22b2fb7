#!/usr/bin/env python3
"""Writes the parity data the Go tokenizer and embedder are checked against.

Dev-only: needs `pip install tokenizers onnxruntime numpy` (and, for the
static model, its own package: `pip install tokenlearn-static-model==0.1.1`)
and the models in the cache (`make setup`). Users and CI never run it; they
read its output.

For every model of embed/models/manifest.json it writes <id>.json here:
the fixed texts below, their token ids from the Hugging Face tokenizers
library (truncation at the manifest's max tokens, no padding — padding and
truncation baked into a tokenizer.json are switched off), and their
embedding, rounded to 6 decimals:

- ONNX models: onnxruntime, pooling per the manifest, L2-normalised, no
  query/passage prefix. The output read is last_hidden_state, else the first
  float output of rank 3 (the token embeddings), as the Go embedder does.
  A graph that also outputs a pooled sentence vector (paraphrase-MiniLM-L3's
  "461") is checked against our pooling here.
- static models: the vector of the model's own Python package
  (static_model.get_embeddings), ids without special tokens.

    python3 embed/testdata/parity/make_parity.py [-cache DIR] [-out DIR] [id ...]

The embeddings of quantized models depend on the CPU's int8 kernels (docs/portability.md):
the files here are the amd64-avx512-vnni class's; `make parity-avx2` writes amd64-avx2/ by
running this script under qemu-x86_64 -cpu Haswell.
"""

import argparse
import hashlib
import json
import os
import sys

import numpy as np
import onnxruntime
import tokenizers

HERE = os.path.dirname(os.path.abspath(__file__))
MANIFEST = os.path.join(HERE, "..", "..", "models", "manifest.json")


def long_text():
    """About 2,000 tokens of code and prose, deterministic."""
    parts = []
    for i in range(40):
        parts.append(
            f"def handler_{i}(request, retries={i % 5}):\n"
            f"    \"\"\"Handle request number {i}: validate, retry up to {i % 5} times, log the résumé.\"\"\"\n"
            f"    if request.user_id is None or request.payload.get('k{i}') == {i * 7}:\n"
            f"        raise ValueError(f\"bad request {{request!r}} at step {i}\")\n"
            f"    return cache.setdefault(request.key, compute_{i}(request))\n"
        )
    return "\n".join(parts)


TEXTS = [
    ("prose", "The quick brown fox jumps over the lazy dog while the committee reviews the quarterly report."),
    ("query", "how do I parse a JSON file and handle missing keys in python"),
    ("python", "def read_config(path: str) -> dict:\n    \"\"\"Load a YAML config.\"\"\"\n    with open(path) as f:\n        return yaml.safe_load(f) or {}\n"),
    ("go", "func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {\n\tif err := s.auth(r); err != nil {\n\t\thttp.Error(w, err.Error(), http.StatusUnauthorized)\n\t\treturn\n\t}\n}"),
    ("java", "public final class LruCache<K, V> extends LinkedHashMap<K, V> {\n  @Override protected boolean removeEldestEntry(Map.Entry<K, V> e) { return size() > capacity; }\n}"),
    ("typescript", "export async function fetchUser(id: number): Promise<User | undefined> {\n  const res = await fetch(`/api/users/${id}`);\n  return res.ok ? (await res.json()) as User : undefined;\n}"),
    ("rust", "impl<T: Ord> BinaryHeap<T> {\n    pub fn push(&mut self, item: T) { self.data.push(item); self.sift_up(0, self.len() - 1); }\n}"),
    ("cpp", "template <typename T>\nstd::vector<T> merge(const std::vector<T>& a, const std::vector<T>& b) {\n  std::vector<T> out; std::merge(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out)); return out;\n}"),
    ("shell", "for f in $(find . -name '*.go'); do gofmt -l \"$f\" || exit 1; done 2>&1 | tee /tmp/log.txt"),
    ("sql", "SELECT u.id, COUNT(*) AS n FROM users u JOIN orders o ON o.user_id = u.id WHERE o.total > 100 GROUP BY u.id HAVING n >= 3;"),
    ("accents_fr", "Le café naïve de Noël : résumé, déjà-vu, façade, œuvre, Ærø."),
    ("accents_de_es", "Straße, Größe, übermäßig; ¿Dónde está la estación? Ação, coração, Ñandú."),
    ("greek_cyrillic", "Καλημέρα κόσμε, ΣΊΣΥΦΟΣ; Привет, мир! Ёлка и йогурт."),
    ("emoji", "Deploy 🚀 done ✅ thumbs 👍🏽 family 👨‍👩‍👧 flag 🇫🇷 smile 🥲"),
    ("cjk", "中文分词测试：你好，世界！日本語のテキスト、カタカナ。한국어 텍스트입니다."),
    ("literal_special", "first [SEP] second [CLS]third[SEP] [sep] [MASK] [UNK][PAD] [ SEP ]"),
    ("whitespace_control", "tabs\tand\nnewlines\r\n\x0b\x0c\x00 end\u00a0nbsp\u200bzero\u2028line\ufeffbom\x7fdel"),
    ("long_word", "x" * 90 + " " + "supercalifragilistic" * 6 + " " + "y" * 100 + " ok"),
    ("identifiers", "snake_case_identifier camelCaseIdentifier HTTPServer2 __init__ 0x1F4A9 3.14159 1e-10 v1.2.3-rc.1"),
    ("url_path", "https://example.com/a/b?q=1&r=two#frag and /usr/local/lib/python3.11/site-packages/numpy/__init__.py"),
    ("markdown", "## Install\n\n- run `make setup`\n- then **go test ./...**\n\n> Note: _requires_ cgo.\n"),
    ("empty", ""),
    ("only_space", "   \n\t  \r\n "),
    ("punctuation", "!@#$%^&*()_+-=[]{}|;':\",./<>?`~ «quotes» „low“ – — … ¡¿ ·•"),
    ("turkish_ligature_fullwidth", "İstanbul ıI İİ ﬁle ﬂow ＡＢＣ１２３ ℌ ㎏ Å"),
    ("rtl_indic", "مرحبا بالعالم שָׁלוֹם עולם नमस्ते दुनिया ভাষা"),
    ("math_symbols", "∀x∈ℝ: x² ≥ 0 ⇒ √(x²) = |x|; α+β≠γ, ∑ᵢ aᵢ ≤ ∞ ± 1°C"),
    ("docstring_code", "Return the index of the first element of the sorted list `xs` that is not less than `x`, like bisect_left."),
    ("long_2000", long_text()),
    ("long_mixed", ("Résumé of the naïve café's façade: " + "données à traiter — " * 20 + "fn main() { println!(\"{}\", x); } ") * 6),
]

# Extra texts for SentencePiece-style (Unigram) files, exercising what only
# they have: single_word and normalized added tokens, grapheme clusters in
# the Precompiled normalizer, literal metaspace characters.
SENTENCEPIECE_TEXTS = [
    ("sp_added", "<pad> x<pad>y <pad>, (<pad>) <unk> a<unk>b <s> </s>"),
    ("sp_graphemes", "e\u0301 a \u0301 x\r\ny \u1100\u1161\u11a8 \u0915\u094d\u0937 🇫🇷🇩 👍🏽 ﬁ\u0301 ℌ\u0308"),
    ("sp_metaspace", "a▁b ▁▁c ▁ d▁ ▁e▁▁f"),
]


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def default_cache():
    if os.environ.get("RETRIEVALBENCH_CACHE"):
        return os.environ["RETRIEVALBENCH_CACHE"]
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "retrievalbench")


def hidden_output(session):
    """last_hidden_state, else the first float output of rank 3."""
    outs = session.get_outputs()
    for o in outs:
        if o.name == "last_hidden_state":
            return o.name
    for o in outs:
        if o.type == "tensor(float)" and len(o.shape) == 3:
            return o.name
    sys.exit("no float output of rank 3")


def pooled_output(session, dim):
    """A float [batch, dim] output: a sentence vector the graph pools itself."""
    for o in session.get_outputs():
        if o.type == "tensor(float)" and len(o.shape) == 2 and o.shape[1] == dim:
            return o.name
    return None


def unit(v):
    n = np.linalg.norm(v)
    return v / n if n > 0 else v


def embed(session, input_names, enc, pooling, out_name, pooled_name):
    ids = np.array([enc.ids], dtype=np.int64)
    mask = np.array([enc.attention_mask], dtype=np.int64)
    feeds = {"input_ids": ids, "attention_mask": mask}
    if "token_type_ids" in input_names:
        feeds["token_type_ids"] = np.array([enc.type_ids], dtype=np.int64)
    names = [out_name] + ([pooled_name] if pooled_name else [])
    res = session.run(names, feeds)
    hidden = res[0][0].astype(np.float64)
    if pooling == "cls":
        v = hidden[0]
    else:
        m = mask[0].astype(np.float64)[:, None]
        v = (hidden * m).sum(axis=0) / max(m.sum(), 1e-9)
    v = unit(v)
    if pooled_name:
        g = unit(res[1][0].astype(np.float64))
        if float(g @ v) < 0.99999:
            sys.exit(f"the graph's own pooled output {pooled_name} disagrees with mean pooling: cos {float(g @ v)}")
    return v


def static_embedder(m, d):
    """The static model's own package, checked to carry the same files."""
    import static_model

    pkg = os.path.join(os.path.dirname(static_model.__file__), "model")
    for f in m["files"]:
        if sha256(os.path.join(pkg, f["name"])) != f["sha256"]:
            sys.exit(f"{pkg}/{f['name']}: not the manifest's {f['name']}; install the pinned package version")
    return static_model.get_embeddings


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-cache", default=default_cache())
    ap.add_argument("-out", default=HERE, help="directory to write to (default: this one, the references of the "
                    "amd64-avx512-vnni class; amd64-avx2/ holds those of the AVX2 class, made under qemu-x86_64 -cpu Haswell)")
    ap.add_argument("ids", nargs="*", help="models to write (default: all)")
    args = ap.parse_args()
    with open(MANIFEST) as f:
        manifest = json.load(f)
    for m in manifest["models"]:
        if args.ids and m["id"] not in args.ids:
            continue
        static = m.get("kind") == "static"
        weights = "model.safetensors" if static else "model.onnx"
        d = os.path.join(args.cache, "models", m["id"])
        tok_path, onnx_path = os.path.join(d, "tokenizer.json"), os.path.join(d, weights)
        want = {f["name"]: f["sha256"] for f in m["files"]}
        for name, p in (("tokenizer.json", tok_path), (weights, onnx_path)):
            if not os.path.exists(p) or sha256(p) != want[name]:
                sys.exit(f"{p}: missing or wrong sha256; run `make setup` first")
        tok = tokenizers.Tokenizer.from_file(tok_path)
        tok.no_padding()
        tok.enable_truncation(max_length=m["max_tokens"])
        texts = TEXTS
        if json.load(open(tok_path))["model"]["type"] == "Unigram":
            texts = TEXTS + SENTENCEPIECE_TEXTS
        if static:
            get_embeddings = static_embedder(m, d)
        else:
            opts = onnxruntime.SessionOptions()
            opts.intra_op_num_threads = 1
            session = onnxruntime.InferenceSession(onnx_path, opts, providers=["CPUExecutionProvider"])
            input_names = {i.name for i in session.get_inputs()}
            out_name = hidden_output(session)
            pooled_name = pooled_output(session, m["dimension"])
        cases = []
        for name, text in texts:
            if static:
                enc = tok.encode(text, add_special_tokens=False)
                vec = unit(np.array(get_embeddings(text), dtype=np.float64))
            else:
                enc = tok.encode(text)
                vec = embed(session, input_names, enc, m["pooling"], out_name, pooled_name)
            cases.append({
                "name": name,
                "text": text,
                "ids": enc.ids,
                "truncated": len(enc.overflowing) > 0,
                "embedding": [round(float(x), 6) for x in vec],
            })
        out = {
            "model": m["id"],
            "model_sha256": want[weights],
            "tokenizer_sha256": want["tokenizer.json"],
            "max_tokens": m["max_tokens"],
            "pooling": m["pooling"],
            "generator": f"make_parity.py with tokenizers {tokenizers.__version__}, "
            + ("tokenlearn-static-model 0.1.1" if static else f"onnxruntime {onnxruntime.__version__}")
            + f", numpy {np.__version__}",
            "cases": cases,
        }
        os.makedirs(args.out, exist_ok=True)
        path = os.path.join(args.out, m["id"] + ".json")
        tmp = path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(out, f, ensure_ascii=False, separators=(",", ":"))
            f.write("\n")
        os.replace(tmp, path)
        print(f"{path}: {len(cases)} cases, {sum(c['truncated'] for c in cases)} truncated")


if __name__ == "__main__":
    main()
