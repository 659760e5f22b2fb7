"""Embedding with Python onnxruntime and Hugging Face tokenizers, as a user
would run it on a file of texts: load the same model.onnx and tokenizer.json
our embedder uses, tokenize each text (truncation at the model's max tokens,
no padding), run it alone (batch 1: the quantized models scale activations
over the batch), pool per the manifest (mean over the attention mask, or
CLS), L2-normalise, and write one JSON line per text: {"text_index", "vector"}.

usage: python peer_ort.py MODEL_DIR POOLING MAX_TOKENS THREADS TEXTS.jsonl OUT.jsonl
"""
import json
import sys

import numpy as np
import onnxruntime
import tokenizers


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


def main():
    model_dir, pooling, max_tokens, threads, texts_path, out_path = sys.argv[1:7]
    tok = tokenizers.Tokenizer.from_file(f"{model_dir}/tokenizer.json")
    tok.no_padding()
    tok.enable_truncation(max_length=int(max_tokens))
    opts = onnxruntime.SessionOptions()
    opts.intra_op_num_threads = int(threads)
    opts.inter_op_num_threads = 1
    session = onnxruntime.InferenceSession(f"{model_dir}/model.onnx", opts, providers=["CPUExecutionProvider"])
    input_names = {i.name for i in session.get_inputs()}
    out_name = hidden_output(session)
    with open(texts_path) as f:
        texts = [json.loads(line)["text"] for line in f if line.strip()]
    with open(out_path, "w") as out:
        for i, enc in enumerate(tok.encode_batch(texts)):
            ids = np.array([enc.ids], dtype=np.int64)
            mask = np.array([enc.attention_mask], dtype=np.int64)
            feeds = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in input_names:
                feeds["token_type_ids"] = np.array([enc.type_ids], dtype=np.int64)
            hidden = session.run([out_name], feeds)[0][0]
            if pooling == "cls":
                v = hidden[0]
            else:
                m = mask[0].astype(np.float32)[:, None]
                v = (hidden * m).sum(axis=0) / max(m.sum(), 1e-9)
            n = np.linalg.norm(v)
            if n > 0:
                v = v / n
            out.write(json.dumps({"text_index": i, "vector": [float(x) for x in v]}) + "\n")


if __name__ == "__main__":
    main()
