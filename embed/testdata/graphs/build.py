#!/usr/bin/env python3
"""Builds the small randomly initialised ONNX graphs of embed/graphs_test.go
and their reference vectors, computed here with Python ONNX Runtime.

The graphs say nothing about quality: their weights are seeded random numbers,
so they exist only to check that package embed feeds inputs, reads outputs,
pools, truncates and normalises as a Python pipeline does. They must never be
benchmarked or shown on a leaderboard.

Pinned versions (a venv outside the repository):

    python3.11 -m venv /tmp/venv-models
    /tmp/venv-models/bin/pip install onnx==1.17.0 onnxruntime==1.20.1 numpy==2.1.3 tokenizers==0.21.0
    cd embed/testdata/graphs && /tmp/venv-models/bin/python build.py

Every output is a pure function of this file and those versions (seeded
generators; the WordPiece vocabulary is trained deterministically), so
running it again rewrites the same bytes.

Reference pipeline, per text and model (the ground truth the Go test
compares with, batched and padded on the Go side):
  1. prefix + text through tokenizer.json (HF tokenizers), truncated at
     max_tokens;
  2. one unpadded row: input_ids, attention_mask (ones), token_type_ids
     (zeros) and position_ids (0..n-1) when the graph takes them;
  3. the model's output: a [1, n, hidden] token-level tensor pooled in numpy
     (cls: position 0; mean: all positions; lasttoken: position n-1), or a
     ready [1, hidden] sentence embedding;
  4. the first `dimension` components (Matryoshka truncation);
  5. L2 normalisation unless the model says "normalize": false.
"""

import json
import os

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper
from onnxruntime.quantization import QuantType, quantize_dynamic
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors, trainers

HERE = os.path.dirname(os.path.abspath(__file__))
OPSET = 17
MAXPOS = 64  # position table rows; every model's max_tokens is at most this

# A small corpus of prose and code to train the WordPiece vocabulary on.
CORPUS = [
    "Reverse a string in Python: def reverse(s): return s[::-1]",
    "func Fetch(url string) ([]byte, error) { resp, err := http.Get(url) }",
    "public static int add(int a, int b) { return a + b; }",
    "const sum = (xs) => xs.reduce((a, b) => a + b, 0);",
    "fn main() { let v: Vec<u32> = (0..10).collect(); println!(\"{:?}\", v); }",
    "int is_prime(int n) { for (int i = 2; i * i <= n; i++) if (n % i == 0) return 0; return 1; }",
    "Open a PostgreSQL database connection and retry on failure.",
    "Create a directory if it is missing, then write the configuration file.",
    "The quick brown fox jumps over the lazy dog. Ünïcödé text, naïve café.",
]

TEXTS = [
    "reverse a string",
    "def reverse(s):\n    return s[::-1]",
    "open a database connection",
    "func Fetch(url string) ([]byte, error)",
    "x",
    "",
    "naïve café — ünïcödé",
    # longer than every model's max_tokens: truncation
    " ".join(["public static int add(int a, int b) { return a + b; }"] * 6),
]


def build_tokenizer():
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]", max_input_chars_per_word=100))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True, strip_accents=None, clean_text=True, handle_chinese_chars=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    trainer = trainers.WordPieceTrainer(vocab_size=300, special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]"], show_progress=False)
    tok.train_from_iterator(CORPUS, trainer=trainer)
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", tok.token_to_id("[CLS]")), ("[SEP]", tok.token_to_id("[SEP]"))])
    path = os.path.join(HERE, "tokenizer.json")
    tok.save(path)
    return Tokenizer.from_file(path)


def build_graph(name, vocab, hidden, seed, type_ids=False, pos_input=False, causal=False,
                output="last_hidden_state", fp16=False):
    rng = np.random.default_rng(seed)
    inits, nodes = [], []
    wdtype = np.float16 if fp16 else np.float32

    def weight(wname, *shape):
        arr = (rng.standard_normal(shape) * 0.5).astype(wdtype)
        inits.append(numpy_helper.from_array(arr, wname + ("_h" if fp16 else "")))
        if fp16:  # weights stored in half precision, computed in single
            nodes.append(helper.make_node("Cast", [wname + "_h"], [wname], to=TensorProto.FLOAT))
        return wname

    def const(cname, arr):
        inits.append(numpy_helper.from_array(np.asarray(arr), cname))
        return cname

    def node(op, ins, out, **kw):
        nodes.append(helper.make_node(op, ins, [out], **kw))
        return out

    inputs = [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
              helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "seq"])]
    x = node("Gather", [weight("emb", vocab, hidden), "input_ids"], "x_tok")
    if type_ids:
        inputs.append(helper.make_tensor_value_info("token_type_ids", TensorProto.INT64, ["batch", "seq"]))
        t = node("Gather", [weight("type_emb", 2, hidden), "token_type_ids"], "x_type")
        x = node("Add", [x, t], "x_tt")
    shape = node("Shape", ["input_ids"], "shape")
    seq_vec = node("Slice", [shape, const("one_i", np.array([1], np.int64)), const("two_i", np.array([2], np.int64))], "seq_vec")
    if pos_input:
        inputs.append(helper.make_tensor_value_info("position_ids", TensorProto.INT64, ["batch", "seq"]))
        p = node("Gather", [weight("pos_emb", MAXPOS, hidden), "position_ids"], "x_pos")
    else:  # positions 0..seq-1, as encoders compute them inside
        seq = node("Squeeze", [seq_vec, const("zero_ax", np.array([0], np.int64))], "seq")
        rng_ = node("Range", [const("zero_s", np.array(0, np.int64)), seq, const("one_s", np.array(1, np.int64))], "range")
        p = node("Gather", [weight("pos_emb", MAXPOS, hidden), rng_], "x_pos")
    x = node("Add", [x, p], "x")
    q = node("MatMul", [x, weight("wq", hidden, hidden)], "q")
    k = node("MatMul", [x, weight("wk", hidden, hidden)], "k")
    v = node("MatMul", [x, weight("wv", hidden, hidden)], "v")
    kt = node("Transpose", [k], "kt", perm=[0, 2, 1])
    s = node("MatMul", [q, kt], "s_raw")
    s = node("Mul", [s, const("scale", np.array(1 / np.sqrt(hidden), np.float32))], "s_scaled")
    maskf = node("Cast", ["attention_mask"], "maskf", to=TensorProto.FLOAT)
    m3 = node("Unsqueeze", [maskf, const("ax1", np.array([1], np.int64))], "mask3")
    big = const("big", np.array(10000.0, np.float32))
    onef = const("onef", np.array(1.0, np.float32))
    keypen = node("Mul", [node("Sub", [m3, onef], "mask_m1"), big], "keypen")
    s = node("Add", [s, keypen], "s_masked")
    if causal:
        tt = node("Concat", [seq_vec, seq_vec], "tt", axis=0)
        ones = node("ConstantOfShape", [tt], "ones", value=helper.make_tensor("v", TensorProto.FLOAT, [1], [1.0]))
        tri = node("Trilu", [ones], "tri", upper=0)
        causalpen = node("Mul", [node("Sub", [tri, onef], "tri_m1"), big], "causalpen")
        s = node("Add", [s, causalpen], "s_causal")
    a = node("Softmax", [s], "attn", axis=-1)
    o = node("MatMul", [node("MatMul", [a, v], "ctx"), weight("wo", hidden, hidden)], "o")
    h = node("Tanh", [node("Add", [x, o], "resid")], "h1")
    h = node("Tanh", [node("Add", [node("MatMul", [h, weight("w2", hidden, hidden)], "ff"), h], "resid2")], "hidden")

    out_type = TensorProto.FLOAT16 if fp16 else TensorProto.FLOAT
    if output == "sentence_embedding":  # masked mean inside the graph
        m = node("Unsqueeze", [maskf, const("ax2", np.array([2], np.int64))], "mask_t")
        summed = node("ReduceSum", [node("Mul", [h, m], "hm"), const("ax1b", np.array([1], np.int64))], "summed", keepdims=0)
        count = node("ReduceSum", [m, const("ax1c", np.array([1], np.int64))], "count", keepdims=0)
        h = node("Div", [summed, count], "sent")
        dims = ["batch", hidden]
    else:
        dims = ["batch", "seq", hidden]
    if fp16:
        node("Cast", [h], output, to=TensorProto.FLOAT16)
    else:
        node("Identity", [h], output)
    graph = helper.make_graph(nodes, name, inputs, [helper.make_tensor_value_info(output, out_type, dims)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="retrievalbench-testgraphs")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


# name → how the graph is built and what its manifest entry says.
MODELS = [
    dict(name="enc-cls-types", graph=dict(type_ids=True), pooling="cls", hidden=16, dimension=16, max_tokens=32),
    dict(name="enc-mean-tokenemb", graph=dict(output="token_embeddings"), pooling="mean", hidden=16, dimension=16, max_tokens=48, normalize=False),
    dict(name="enc-mean-matryoshka", graph=dict(), pooling="mean", hidden=16, dimension=8, max_tokens=48),
    dict(name="enc-sentence", graph=dict(output="sentence_embedding"), pooling="mean", hidden=16, dimension=16, max_tokens=48),
    dict(name="dec-last-right", graph=dict(causal=True), pooling="lasttoken", hidden=16, dimension=16, max_tokens=40, padding_side="right"),
    dict(name="dec-last-left-pos", graph=dict(causal=True, pos_input=True), pooling="lasttoken", hidden=16, dimension=12, max_tokens=40, padding_side="left"),
    dict(name="enc-mean-fp16", graph=dict(fp16=True), pooling="mean", hidden=16, dimension=16, max_tokens=48),
    dict(name="enc-mean-int8", graph=dict(type_ids=True), int8=True, pooling="mean", hidden=16, dimension=16, max_tokens=48),
]


def reference(sess, tok, spec, text):
    enc = tok.encode(text)
    ids = enc.ids
    if len(ids) > spec["max_tokens"]:  # HF truncation keeps [CLS] … [SEP]
        tok.enable_truncation(spec["max_tokens"])
        ids = tok.encode(text).ids
        tok.no_truncation()
    n = len(ids)
    feeds = {"input_ids": np.array([ids], np.int64), "attention_mask": np.ones((1, n), np.int64)}
    names = {i.name for i in sess.get_inputs()}
    if "token_type_ids" in names:
        feeds["token_type_ids"] = np.zeros((1, n), np.int64)
    if "position_ids" in names:
        feeds["position_ids"] = np.arange(n, dtype=np.int64)[None, :]
    out = sess.run(None, feeds)[0].astype(np.float32)
    if out.ndim == 2:
        vec = out[0]
    elif spec["pooling"] == "cls":
        vec = out[0, 0]
    elif spec["pooling"] == "mean":
        vec = out[0].mean(axis=0, dtype=np.float32)
    else:
        vec = out[0, n - 1]
    vec = vec[: spec["dimension"]]
    if spec.get("normalize", True):
        vec = vec / np.linalg.norm(vec.astype(np.float64)).astype(np.float32)
    return ids, [float(f"{x:.7g}") for x in vec]


def main():
    tok = build_tokenizer()
    vocab = tok.get_vocab_size()
    out = {"generator": "embed/testdata/graphs/build.py", "onnxruntime": ort.__version__, "onnx": onnx.__version__,
           "tokenizers": __import__("tokenizers").__version__, "numpy": np.__version__, "texts": TEXTS, "models": []}
    for seed, spec in enumerate(MODELS, start=1):
        model = build_graph(spec["name"], vocab, spec["hidden"], seed, **spec["graph"])
        path = os.path.join(HERE, spec["name"] + ".onnx")
        onnx.save(model, path)
        if spec.get("int8"):
            tmp = path + ".fp32"
            os.replace(path, tmp)
            quantize_dynamic(tmp, path, weight_type=QuantType.QUInt8)
            os.remove(tmp)
        sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        entry = {k: v for k, v in spec.items() if k not in ("graph", "int8")}
        entry["output"] = sess.get_outputs()[0].name
        entry["inputs"] = [i.name for i in sess.get_inputs()]
        entry["ids"], entry["vectors"] = [], []
        for text in TEXTS:
            ids, vec = reference(sess, tok, spec, text)
            entry["ids"].append(ids)
            entry["vectors"].append(vec)
        out["models"].append(entry)
    with open(os.path.join(HERE, "reference.json"), "w") as f:
        json.dump(out, f, indent=1, ensure_ascii=False)
        f.write("\n")


if __name__ == "__main__":
    main()
