#!/usr/bin/env python3
"""A minimal OpenAI-compatible embeddings server (POST /v1/embeddings) over
one local ONNX model folder, for embed's opt-in TestEndpointServer: the
same model embedded in-process by Go and, through this server, by Python
ONNX Runtime and Hugging Face tokenizers.

It is a test server, not a product: one model, no key, CPU only.

    /tmp/venv-models/bin/pip install onnxruntime==1.20.1 numpy==2.1.3 tokenizers==0.21.0
    /tmp/venv-models/bin/python serve.py --dir MODEL_DIR --name NAME --port PORT \
        --pooling mean --max-tokens 256

The folder holds model.onnx and tokenizer.json. A batch is padded to its
longest text (right, pad id 0); vectors are pooled (cls or mean over the
attention mask) and L2-normalised, as Text Embeddings Inference serves them.
"""

import argparse
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--name", required=True)
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--pooling", choices=["cls", "mean"], default="mean")
    ap.add_argument("--max-tokens", type=int, default=256)
    args = ap.parse_args()

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    sess = ort.InferenceSession(f"{args.dir}/model.onnx", opts, providers=["CPUExecutionProvider"])
    inputs = {i.name for i in sess.get_inputs()}
    tok = Tokenizer.from_file(f"{args.dir}/tokenizer.json")
    tok.no_padding()
    tok.enable_truncation(args.max_tokens)

    def embed(texts):
        encs = tok.encode_batch(texts)
        n = max(len(e.ids) for e in encs)
        ids = np.zeros((len(encs), n), np.int64)
        mask = np.zeros((len(encs), n), np.int64)
        for r, e in enumerate(encs):
            ids[r, : len(e.ids)] = e.ids
            mask[r, : len(e.ids)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = sess.run(None, feeds)[0]
        if args.pooling == "cls":
            vecs = hidden[:, 0]
        else:
            m = mask[:, :, None].astype(np.float32)
            vecs = (hidden * m).sum(axis=1) / m.sum(axis=1)
        return vecs / np.linalg.norm(vecs, axis=1, keepdims=True)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            if self.path != "/v1/embeddings":
                self.send_error(404)
                return
            req = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            if req.get("model") != args.name:
                self.send_error(400, f"unknown model {req.get('model')!r}")
                return
            texts = req["input"] if isinstance(req["input"], list) else [req["input"]]
            vecs = embed(texts)
            body = json.dumps({"object": "list", "model": args.name, "data": [
                {"object": "embedding", "index": i, "embedding": [float(x) for x in v]} for i, v in enumerate(vecs)]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *a):
            pass

    srv = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    print(f"serving {args.name} on 127.0.0.1:{args.port}", flush=True)
    sys.stdout.flush()
    srv.serve_forever()


if __name__ == "__main__":
    main()
