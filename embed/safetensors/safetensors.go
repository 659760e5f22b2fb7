// Package safetensors reads the safetensors format (Hugging Face): an
// 8-byte little-endian header length, a JSON header naming each tensor's
// dtype, shape and byte range, then the tensors' bytes, little-endian and
// row-major. Only the standard library is used.
//
//	f, err := safetensors.Read("model.safetensors")
//	w, err := f.F32("weights") // []float32, shape checked against the data
package safetensors

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"
)

// maxHeader bounds the JSON header (the format's own limit is 100 MB).
const maxHeader = 100 << 20

// Tensor is one tensor's entry.
type Tensor struct {
	DType string // "F32", "I64", "I8", …
	Shape []int
	data  []byte
}

// Len is the number of elements (the product of Shape; 1 for a scalar).
func (t Tensor) Len() int {
	n := 1
	for _, d := range t.Shape {
		n *= d
	}
	return n
}

// File is a read safetensors file.
type File struct {
	Path     string
	Metadata map[string]string
	Tensors  map[string]Tensor
}

// Names returns the tensor names, sorted.
func (f *File) Names() []string {
	names := make([]string, 0, len(f.Tensors))
	for n := range f.Tensors {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

var dtypeSize = map[string]int{
	"BOOL": 1, "U8": 1, "I8": 1, "F8_E5M2": 1, "F8_E4M3": 1,
	"I16": 2, "U16": 2, "F16": 2, "BF16": 2,
	"I32": 4, "U32": 4, "F32": 4,
	"I64": 8, "U64": 8, "F64": 8,
}

// Read reads the whole file at path and checks its header: every tensor's
// byte range lies in the data, matches its dtype and shape, and the ranges
// cover the data without overlap.
func Read(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("safetensors: %w", err)
	}
	f, err := Parse(path, data)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// Parse is Read on bytes already in memory; name is used in errors. The
// tensors share data's storage.
func Parse(name string, data []byte) (*File, error) {
	fail := func(format string, args ...any) (*File, error) {
		return nil, fmt.Errorf("safetensors: %s: %s", name, fmt.Sprintf(format, args...))
	}
	if len(data) < 8 {
		return fail("%d bytes: too short for the 8-byte header length", len(data))
	}
	n := binary.LittleEndian.Uint64(data)
	if n > maxHeader || n > uint64(len(data)-8) {
		return fail("header length %d does not fit in the file of %d bytes", n, len(data))
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data[8:8+n], &raw); err != nil {
		return fail("header: %v", err)
	}
	body := data[8+n:]
	f := &File{Path: name, Tensors: make(map[string]Tensor, len(raw))}
	type span struct {
		lo, hi int
		name   string
	}
	var spans []span
	for tn, msg := range raw {
		if tn == "__metadata__" {
			if err := json.Unmarshal(msg, &f.Metadata); err != nil {
				return fail("__metadata__: %v (want string values)", err)
			}
			continue
		}
		var e struct {
			DType   string `json:"dtype"`
			Shape   []int  `json:"shape"`
			Offsets []int  `json:"data_offsets"`
		}
		if err := json.Unmarshal(msg, &e); err != nil {
			return fail("tensor %q: %v", tn, err)
		}
		size, ok := dtypeSize[e.DType]
		if !ok {
			return fail("tensor %q: unknown dtype %q", tn, e.DType)
		}
		if len(e.Offsets) != 2 || e.Offsets[0] < 0 || e.Offsets[0] > e.Offsets[1] || e.Offsets[1] > len(body) {
			return fail("tensor %q: data_offsets %v outside the %d data bytes", tn, e.Offsets, len(body))
		}
		t := Tensor{DType: e.DType, Shape: e.Shape, data: body[e.Offsets[0]:e.Offsets[1]]}
		for _, d := range e.Shape {
			if d < 0 {
				return fail("tensor %q: negative dimension in shape %v", tn, e.Shape)
			}
		}
		if want := t.Len() * size; want != len(t.data) {
			return fail("tensor %q: %s%v needs %d bytes, data_offsets give %d", tn, e.DType, e.Shape, want, len(t.data))
		}
		f.Tensors[tn] = t
		spans = append(spans, span{e.Offsets[0], e.Offsets[1], tn})
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].lo < spans[j].lo })
	end := 0
	for _, s := range spans {
		if s.lo < end {
			return fail("tensor %q overlaps the tensor before it", s.name)
		}
		end = s.hi
	}
	return f, nil
}

func (f *File) get(name, dtype string) (Tensor, error) {
	t, ok := f.Tensors[name]
	if !ok {
		return Tensor{}, fmt.Errorf("safetensors: %s: no tensor %q (have %v)", f.Path, name, f.Names())
	}
	if t.DType != dtype {
		return Tensor{}, fmt.Errorf("safetensors: %s: tensor %q is %s, want %s", f.Path, name, t.DType, dtype)
	}
	return t, nil
}

// F32 returns the elements of the named F32 tensor, row-major.
func (f *File) F32(name string) ([]float32, Tensor, error) {
	t, err := f.get(name, "F32")
	if err != nil {
		return nil, t, err
	}
	out := make([]float32, t.Len())
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(t.data[4*i:]))
	}
	return out, t, nil
}

// I64 returns the elements of the named I64 tensor, row-major.
func (f *File) I64(name string) ([]int64, Tensor, error) {
	t, err := f.get(name, "I64")
	if err != nil {
		return nil, t, err
	}
	out := make([]int64, t.Len())
	for i := range out {
		out[i] = int64(binary.LittleEndian.Uint64(t.data[8*i:]))
	}
	return out, t, nil
}

// I8 returns the elements of the named I8 tensor, row-major.
func (f *File) I8(name string) ([]int8, Tensor, error) {
	t, err := f.get(name, "I8")
	if err != nil {
		return nil, t, err
	}
	out := make([]int8, t.Len())
	for i, b := range t.data {
		out[i] = int8(b)
	}
	return out, t, nil
}
