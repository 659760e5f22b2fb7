package models

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retrievalbench/retrievalbench/internal/testenv"
)

// pb builds protobuf wire format by hand, the test's own encoder.
type pb []byte

func (b pb) varint(num, v uint64) pb {
	b = binary.AppendUvarint(b, num<<3)
	return binary.AppendUvarint(b, v)
}

func (b pb) bytes(num uint64, v []byte) pb {
	b = binary.AppendUvarint(b, num<<3|2)
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
}

// tensorPB is a TensorProto: dims (packed or one field each), data type,
// name and n raw bytes of data.
func tensorPB(dims []uint64, packed bool, dtype uint64, name string, raw int) []byte {
	var t pb
	if packed {
		var d pb
		for _, x := range dims {
			d = binary.AppendUvarint(d, x)
		}
		t = t.bytes(1, d)
	} else {
		for _, x := range dims {
			t = t.varint(1, x)
		}
	}
	t = t.varint(2, dtype)
	t = t.bytes(8, []byte(name))
	return t.bytes(9, make([]byte, raw))
}

// TestParametersWire: a hand-encoded ModelProto whose graph holds a float
// weight [3, 4] (dims unpacked), a float16 bias [4] (packed), an int8
// quantized weight [2, 5], and what is not a parameter: an int64 shape
// constant, a float scalar, a per-channel "_scale" and "_zero_point".
// Fields the reader does not know (ir_version, a node, a doc string) are
// skipped. 12 + 4 + 10 = 26.
func TestParametersWire(t *testing.T) {
	var g pb
	g = g.bytes(1, pb{}.bytes(1, []byte("x")).bytes(4, []byte("MatMul"))) // a node
	g = g.bytes(5, tensorPB([]uint64{3, 4}, false, 1, "w", 48))
	g = g.bytes(5, tensorPB([]uint64{4}, true, 10, "b", 8))
	g = g.bytes(5, tensorPB([]uint64{2, 5}, true, 3, "wq_quantized", 10))
	g = g.bytes(5, tensorPB([]uint64{3}, false, 7, "shape", 24))
	g = g.bytes(5, tensorPB(nil, false, 1, "eps", 4))
	g = g.bytes(5, tensorPB([]uint64{5}, false, 1, "wq_scale", 20))
	g = g.bytes(5, tensorPB([]uint64{5}, false, 2, "wq_zero_point", 5))
	g = g.bytes(2, []byte("main"))
	m := pb{}.varint(1, 8).bytes(6, []byte("a doc")).bytes(7, g).varint(5, 1)
	dir := t.TempDir()
	path := filepath.Join(dir, "model.onnx")
	if err := os.WriteFile(path, m, 0o644); err != nil {
		t.Fatal(err)
	}
	n, err := Parameters(path)
	if err != nil || n != 26 {
		t.Errorf("Parameters = %d, %v; want 26", n, err)
	}
	// Cut inside the graph: an error naming the file, never a count.
	cut := filepath.Join(dir, "cut.onnx")
	if err := os.WriteFile(cut, m[:len(m)-40], 0o644); err != nil {
		t.Fatal(err)
	}
	if n, err := Parameters(cut); err == nil || !strings.Contains(err.Error(), cut) {
		t.Errorf("truncated model: %d, %v; want an error naming %s", n, err, cut)
	}
	txt := filepath.Join(dir, "tokenizer.json")
	if err := os.WriteFile(txt, []byte(`{"version": "1.0"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if n, err := Parameters(txt); err == nil {
		t.Errorf("a JSON file counted as a model: %d", n)
	}
}

// bertParameters is a BERT encoder's parameter count from its config.json,
// without the pooler (the exports read last_hidden_state, so it is pruned):
// embeddings (word, position, token type, LayerNorm) and per layer Q, K,
// V, the attention output, two LayerNorms and the feed-forward pair.
func bertParameters(vocab, hidden, layers, ffn, positions, types int64) int64 {
	emb := vocab*hidden + positions*hidden + types*hidden + 2*hidden
	layer := 4*(hidden*hidden+hidden) + 2*2*hidden + (hidden*ffn + ffn) + (ffn*hidden + hidden)
	return emb + layers*layer
}

// TestParametersBuiltin counts the cached built-in models' graphs against
// the parameter count of their architectures (config.json of each model
// card), quantized and not: a quantized graph counts its int8 weights and
// not its scales.
func TestParametersBuiltin(t *testing.T) {
	cache := testenv.CacheDir()
	mpnet := bertParameters(30527, 768, 12, 3072, 514, 0) + 32*12 // + relative attention bias: buckets × heads
	for id, want := range map[string]int64{
		"minilm-l6":    bertParameters(30522, 384, 6, 1536, 512, 2), // 22,565,376 (HF: 22.7M with the pooler)
		"minilm-l6-q":  bertParameters(30522, 384, 6, 1536, 512, 2),
		"minilm-l3":    bertParameters(30522, 384, 3, 1536, 512, 2),
		"bge-small-q":  bertParameters(30522, 384, 12, 1536, 512, 2), // 33,212,160 (HF: 33.4M with the pooler)
		"e5-small-q":   bertParameters(30522, 384, 12, 1536, 512, 2),
		"mpnet-base-q": mpnet, // 108,895,872 (HF: 109M)
	} {
		path := filepath.Join(cache, "models", id, ModelFile)
		if _, err := os.Stat(path); err != nil {
			testenv.Missing(t, testenv.Models, path+" not found (make setup)")
			continue
		}
		n, err := Parameters(path)
		if err != nil || n != want {
			t.Errorf("%s: Parameters = %d, %v; want %d", id, n, err, want)
		}
	}
}
