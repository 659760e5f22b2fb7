#!/usr/bin/env python3
"""Trains the small byte-level BPE tokenizers of embed/tokenizer's BPE tests
with Hugging Face tokenizers itself, and records its ids for code and prose
in Python, Go, Java, TypeScript, Rust and C++ (reference.json).

No pretrained byte-level tokenizer is reachable here, so these stand in for
the shapes of real ones: GPT-2/RoBERTa (ByteLevel pre-tokenizer with its
regex, RobertaProcessing), Qwen2/Qwen3 (NFC, Split with the cl100k-style
regex then ByteLevel, an end-of-text token appended by TemplateProcessing),
Llama 3 (Split with digits in threes, ignore_merges, a Sequence of
ByteLevel and TemplateProcessing post-processors) and a byte-fallback BPE
(Metaspace, <0xXX> tokens for characters outside the vocabulary).

Pinned versions (a venv outside the repository):

    python3.11 -m venv /tmp/venv-models
    /tmp/venv-models/bin/pip install tokenizers==0.21.0
    cd embed/tokenizer/testdata/bpe && /tmp/venv-models/bin/python build.py

Training is deterministic for a given corpus and version: running this again
rewrites the same files.
"""

import json
import os

import tokenizers
from tokenizers import Regex, Tokenizer, models, normalizers, pre_tokenizers, processors, trainers

HERE = os.path.dirname(os.path.abspath(__file__))

GPT2_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
QWEN_PATTERN = r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
LLAMA3_PATTERN = r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""

# Code and prose in the six chunker languages: the training corpus, and the
# first half of the parity texts.
SOURCES = {
    "python": 'def fetch_all(urls: list[str]) -> dict[str, bytes]:\n    """Fetch every URL; retry twice on failure."""\n    out = {}\n    for u in urls:\n        out[u] = requests.get(u, timeout=10).content\n    return out\n',
    "go": "func (s *Store) Get(ctx context.Context, key string) ([]byte, error) {\n\tif v, ok := s.cache[key]; ok {\n\t\treturn v, nil\n\t}\n\treturn nil, fmt.Errorf(\"get %q: %w\", key, ErrNotFound)\n}\n",
    "java": "public final class LruCache<K, V> extends LinkedHashMap<K, V> {\n    private final int capacity;\n    @Override protected boolean removeEldestEntry(Map.Entry<K, V> e) { return size() > capacity; }\n}\n",
    "typescript": "export async function retry<T>(fn: () => Promise<T>, times = 3): Promise<T> {\n  for (let i = 0; i < times; i++) {\n    try { return await fn(); } catch (e) { await sleep(2 ** i * 100); }\n  }\n  throw new Error(`gave up after ${times} tries`);\n}\n",
    "rust": "impl<'a> Parser<'a> {\n    pub fn next_token(&mut self) -> Option<Token<'a>> {\n        let c = self.chars.peek()?;\n        match c { '0'..='9' => self.number(), _ => self.ident() }\n    }\n}\n",
    "cpp": "template <typename T>\nstd::vector<T> topk(const std::vector<T>& xs, size_t k) {\n  std::vector<T> out(xs);\n  std::partial_sort(out.begin(), out.begin() + k, out.end(), std::greater<T>());\n  out.resize(k);\n  return out;\n}\n",
    "prose": "Retrieval for code assistants: the query is a question (\"where is the retry logic?\"), the documents are functions. It's what we'll measure, and they've said it's 12,345 times faster.\n",
}

TEXTS = list(SOURCES.values()) + [
    "",
    " ",
    "   leading and trailing spaces   ",
    "tabs\tand\r\nwindows\r\nnewlines\n\n\n  indented",
    "CONTRACTIONS: I'M HERE, YOU'RE there, it's, we'VE",
    "numbers 1 12 123 1234 12345 3.14159 0x1F ٣٤٥ Ⅻ",
    "naïve café, Ünïcödé, e\u0301 (combining), ﬁ ligature",
    "日本語のテキストと中文文本",
    "emoji 🚀🔥 and 👩‍💻 zwj",
    "symbols: <=> != === && || ->> ::<> #[derive(Debug)] @@ $$",
    "special tokens inside: <|endoftext|> and <s> and </s> end",
    "x",
    "supercalifragilisticexpialidocious_identifier_withUnderscores",
    "\u00a0non-breaking\u2003em space\u3000ideographic",
    # long words: a minified line, a run of spaces, a base64 blob
    "var a=function(b){return b.map(function(c){return c*2}).filter(Boolean)};" * 20,
    "indent" + " " * 300 + "x",
    "aGVsbG8gd29ybGQgdGhpcyBpcyBiYXNlNjQgZW5jb2RlZCB0ZXh0" * 30,
]

SPECIAL = ["<|endoftext|>", "<s>", "</s>", "<pad>", "<unk>"]


def train(tok, vocab_size, **kw):
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=SPECIAL, show_progress=False, **kw)
    tok.train_from_iterator(list(SOURCES.values()) * 3, trainer=trainer)
    return tok


def gpt2():
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=True, use_regex=True)
    train(tok, 700, initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.post_processor = processors.RobertaProcessing(("</s>", tok.token_to_id("</s>")), ("<s>", tok.token_to_id("<s>")))
    return tok


def qwen():
    tok = Tokenizer(models.BPE())
    tok.normalizer = normalizers.NFC()
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(QWEN_PATTERN), behavior="isolated", invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
    ])
    train(tok, 800, initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    eot = tok.token_to_id("<|endoftext|>")
    tok.post_processor = processors.TemplateProcessing(single="$A <|endoftext|>", pair="$A <|endoftext|> $B:1 <|endoftext|>:1",
                                                       special_tokens=[("<|endoftext|>", eot)])
    return tok


def llama3():
    tok = Tokenizer(models.BPE(ignore_merges=True))
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(LLAMA3_PATTERN), behavior="isolated", invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
    ])
    train(tok, 900, initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    bos = tok.token_to_id("<s>")
    tok.post_processor = processors.Sequence([
        processors.ByteLevel(trim_offsets=False),
        processors.TemplateProcessing(single="<s> $A", pair="<s> $A <s>:1 $B:1", special_tokens=[("<s>", bos)]),
    ])
    # ignore_merges is a model option the trainer does not keep: rebuild.
    data = json.loads(tok.to_str())
    data["model"]["ignore_merges"] = True
    return Tokenizer.from_str(json.dumps(data))


def bytefallback():
    tok = Tokenizer(models.BPE(unk_token="<unk>", fuse_unk=True))
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.WhitespaceSplit(),
        pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always", split=True),
    ])
    train(tok, 600)
    # Byte fallback: every byte has a <0xXX> token; a character outside the
    # vocabulary becomes its UTF-8 bytes' tokens instead of <unk>.
    data = json.loads(tok.to_str())
    vocab = data["model"]["vocab"]
    for b in range(256):
        vocab.setdefault(f"<0x{b:02X}>", len(vocab))
    data["model"]["byte_fallback"] = True
    tok = Tokenizer.from_str(json.dumps(data))
    tok.post_processor = processors.TemplateProcessing(single="<s> $A </s>", pair="<s> $A </s> $B:1 </s>:1",
                                                       special_tokens=[("<s>", tok.token_to_id("<s>")), ("</s>", tok.token_to_id("</s>"))])
    return tok


def main():
    ref = {"generator": "embed/tokenizer/testdata/bpe/build.py", "tokenizers": tokenizers.__version__,
           "texts": TEXTS, "truncate": 12, "tokenizers_": []}
    for name, make in [("gpt2", gpt2), ("qwen", qwen), ("llama3", llama3), ("bytefallback", bytefallback)]:
        tok = make()
        path = os.path.join(HERE, name + ".json")
        tok.save(path)
        tok = Tokenizer.from_file(path)
        ids = [tok.encode(t).ids for t in TEXTS]
        tok.enable_truncation(ref["truncate"])
        truncated = [tok.encode(t).ids for t in TEXTS]
        ref["tokenizers_"].append({"name": name, "ids": ids, "truncated": truncated})
    ref["tokenizers"] = {"version": ref.pop("tokenizers"), "files": ref.pop("tokenizers_")}
    with open(os.path.join(HERE, "reference.json"), "w") as f:
        json.dump(ref, f, ensure_ascii=False, indent=None, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
