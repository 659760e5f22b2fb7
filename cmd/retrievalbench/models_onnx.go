package main

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// onnxOutput is one output of an ONNX graph: its name and shape (-1 for
// a symbolic or unknown dimension).
type onnxOutput struct {
	name string
	elem uint64 // TensorProto.DataType: 1 float, 10 float16
	dims []int64
}

// float reports whether the output is a float or float16 tensor: what
// package embed can read.
func (o onnxOutput) float() bool { return o.elem == 1 || o.elem == 10 }

// checkONNX is readONNX's error alone.
func checkONNX(path string) error {
	_, err := readONNX(path)
	return err
}

// readONNX reads the ONNX file at path as a protobuf ModelProto, without
// keeping it, and returns the graph's outputs: every top-level field must
// be whole and the graph (field 7) present. A file cut short (a download
// or copy that stopped) ends inside a field — for a real model, inside the
// graph, which holds the weights — so `models add` refuses it instead of
// pinning it and failing at the first embed. It does not load the graph
// (that needs ONNX Runtime).
func readONNX(path string) ([]onnxOutput, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := st.Size()
	r := bufio.NewReaderSize(f, 1<<16)
	var off int64
	graph := false
	var outputs []onnxOutput
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%s: not a complete ONNX model (%d bytes): %s; copy or download it again (a file cut short fails here, not at the first embed)", path, size, fmt.Sprintf(format, args...))
	}
	for off < size {
		key, n, err := readVarint(r)
		off += int64(n)
		if err != nil {
			return nil, bad("field key at byte %d: %v", off, err)
		}
		field, wire := key>>3, key&7
		if field == 0 {
			return nil, bad("field number 0 at byte %d", off)
		}
		var skip int64
		switch wire {
		case 0:
			_, n, err := readVarint(r)
			off += int64(n)
			if err != nil {
				return nil, bad("varint field %d at byte %d: %v", field, off, err)
			}
		case 1:
			skip = 8
		case 5:
			skip = 4
		case 2:
			l, n, err := readVarint(r)
			off += int64(n)
			if err != nil {
				return nil, bad("length of field %d at byte %d: %v", field, off, err)
			}
			if l > uint64(size-off) {
				return nil, bad("field %d at byte %d says %d bytes but the file has %d left: it was cut short", field, off, l, size-off)
			}
			skip = int64(l)
			if field == 7 {
				graph = true
				outs, err := graphOutputs(r, int64(l))
				if err != nil {
					return nil, bad("graph at byte %d: %v", off, err)
				}
				outputs = append(outputs, outs...)
				off += int64(l)
				skip = 0
			}
		default:
			return nil, bad("wire type %d of field %d at byte %d", wire, field, off)
		}
		if skip > size-off {
			return nil, bad("field %d at byte %d needs %d bytes but the file has %d left: it was cut short", field, off, skip, size-off)
		}
		if _, err := r.Discard(int(skip)); err != nil {
			return nil, bad("field %d at byte %d: %v", field, off, err)
		}
		off += skip
	}
	if !graph {
		return nil, bad("no graph (ModelProto field 7)")
	}
	return outputs, nil
}

// graphOutputs reads n bytes of a GraphProto from r, skipping its nodes
// and weights, and returns its outputs (field 12, ValueInfoProto).
func graphOutputs(r *bufio.Reader, n int64) ([]onnxOutput, error) {
	var outs []onnxOutput
	var off int64
	for off < n {
		key, k, err := readVarint(r)
		off += int64(k)
		if err != nil {
			return nil, err
		}
		field, wire := key>>3, key&7
		var skip int64
		switch wire {
		case 0:
			_, k, err := readVarint(r)
			off += int64(k)
			if err != nil {
				return nil, err
			}
		case 1:
			skip = 8
		case 5:
			skip = 4
		case 2:
			l, k, err := readVarint(r)
			off += int64(k)
			if err != nil {
				return nil, err
			}
			if l > uint64(n-off) {
				return nil, fmt.Errorf("field %d says %d bytes but the graph has %d left", field, l, n-off)
			}
			skip = int64(l)
			if field == 12 && l <= 1<<20 {
				b := make([]byte, l)
				if _, err := io.ReadFull(r, b); err != nil {
					return nil, err
				}
				off += int64(l)
				skip = 0
				if o, ok := valueInfo(b); ok {
					outs = append(outs, o)
				}
			}
		default:
			return nil, fmt.Errorf("wire type %d of field %d", wire, field)
		}
		if skip > n-off {
			return nil, fmt.Errorf("field %d needs %d bytes but the graph has %d left", field, skip, n-off)
		}
		if _, err := r.Discard(int(skip)); err != nil {
			return nil, err
		}
		off += skip
	}
	return outs, nil
}

// pbFields calls fn for every field of the protobuf message b: its
// number, its varint value (wire type 0) or its bytes (wire type 2).
func pbFields(b []byte, fn func(field uint64, v uint64, data []byte)) bool {
	for len(b) > 0 {
		key, n := binary.Uvarint(b)
		if n <= 0 {
			return false
		}
		b = b[n:]
		switch key & 7 {
		case 0:
			v, n := binary.Uvarint(b)
			if n <= 0 {
				return false
			}
			b = b[n:]
			fn(key>>3, v, nil)
		case 1, 5:
			w := 8
			if key&7 == 5 {
				w = 4
			}
			if len(b) < w {
				return false
			}
			b = b[w:]
		case 2:
			l, n := binary.Uvarint(b)
			if n <= 0 || l > uint64(len(b)-n) {
				return false
			}
			fn(key>>3, 0, b[n:n+int(l)])
			b = b[n+int(l):]
		default:
			return false
		}
	}
	return true
}

// valueInfo decodes a ValueInfoProto: name (1) and the shape of its
// tensor type (type 2 → tensor_type 1 → shape 2 → dim 1 → dim_value 1).
func valueInfo(b []byte) (onnxOutput, bool) {
	var o onnxOutput
	ok := pbFields(b, func(f, _ uint64, d []byte) {
		switch f {
		case 1:
			o.name = string(d)
		case 2:
			pbFields(d, func(f, _ uint64, d []byte) {
				if f != 1 {
					return
				}
				pbFields(d, func(f, x uint64, d []byte) {
					if f == 1 {
						o.elem = x
					}
					if f != 2 {
						return
					}
					pbFields(d, func(f, _ uint64, d []byte) {
						if f != 1 {
							return
						}
						v := int64(-1)
						pbFields(d, func(f, x uint64, _ []byte) {
							if f == 1 {
								v = int64(x)
							}
						})
						o.dims = append(o.dims, v)
					})
				})
			})
		}
	})
	return o, ok && o.name != ""
}

// readVarint reads a protobuf base-128 varint, returning the bytes read.
func readVarint(r io.ByteReader) (uint64, int, error) {
	var buf [binary.MaxVarintLen64]byte
	for i := range buf {
		b, err := r.ReadByte()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return 0, i, err
		}
		buf[i] = b
		if b < 0x80 {
			v, n := binary.Uvarint(buf[:i+1])
			if n <= 0 {
				return 0, i + 1, errors.New("varint overflows 64 bits")
			}
			return v, i + 1, nil
		}
	}
	return 0, len(buf), errors.New("varint longer than 10 bytes")
}

// graphWidth is the last dimension of the output the embedder reads (out,
// else last_hidden_state, token_embeddings or sentence_embedding, else the
// first of rank 2 or 3, as package embed picks it), with its name; 0 when
// the file does not say.
func graphWidth(outs []onnxOutput, out string) (string, int64) {
	pick := func(ok func(onnxOutput) bool) (string, int64, bool) {
		for _, o := range outs {
			if ok(o) && o.float() && len(o.dims) > 0 {
				return o.name, o.dims[len(o.dims)-1], true
			}
		}
		return "", 0, false
	}
	if out != "" {
		n, w, _ := pick(func(o onnxOutput) bool { return o.name == out })
		return n, max(w, 0)
	}
	for _, want := range []string{"last_hidden_state", "token_embeddings", "sentence_embedding"} {
		if n, w, ok := pick(func(o onnxOutput) bool { return o.name == want }); ok {
			return n, max(w, 0)
		}
	}
	n, w, _ := pick(func(o onnxOutput) bool { return len(o.dims) == 2 || len(o.dims) == 3 })
	return n, max(w, 0)
}
