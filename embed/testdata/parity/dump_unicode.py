#!/usr/bin/env python3
"""Dumps what the Hugging Face tokenizers library does to every code point.

Dev-only (pip install tokenizers). The Rust crates behind the library use
older Unicode tables than Go's unicode package; the Go tokenizer carries
the differences as overrides (embed/tokenizer/unicode_hf.go), generated from
this dump by

    python3 embed/testdata/parity/dump_unicode.py > /tmp/hf_unicode.jsonl
    go test ./embed/tokenizer -run TestGenerateUnicodeOverrides -gen-unicode /tmp/hf_unicode.jsonl

One JSON line per code point (surrogates skipped):
[code point, clean_text result, strip_accents result, lowercase result,
 BertPreTokenizer pieces of "a" + c + "b"].
"""

import json
import sys

import tokenizers
from tokenizers import normalizers, pre_tokenizers


def bert(clean=False, strip=False, lower=False):
    return normalizers.BertNormalizer(clean_text=clean, handle_chinese_chars=False, strip_accents=strip, lowercase=lower)


def main():
    clean, strip, lower = bert(clean=True), bert(strip=True), bert(lower=True)
    pre = pre_tokenizers.BertPreTokenizer()
    out = sys.stdout
    out.write(json.dumps({"tokenizers": tokenizers.__version__}) + "\n")
    for cp in range(1, 0x110000):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        c = chr(cp)
        pieces = [p for p, _ in pre.pre_tokenize_str("a" + c + "b")]
        out.write(json.dumps([cp, clean.normalize_str(c), strip.normalize_str(c), lower.normalize_str(c), pieces], ensure_ascii=True) + "\n")


if __name__ == "__main__":
    main()
