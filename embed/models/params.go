package models

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// Parameters counts the parameters of the ONNX graph at path: the elements
// of its initializers of rank ≥ 1 whose type holds weights (floating point
// of any width, 8- and 4-bit integers: a quantized graph's weights), so
// that shape and index constants (int32, int64), scalars and a quantized
// graph's scales and zero points (initializers named "…_scale" and
// "…_zero_point", as onnxruntime.quantization names them) are left out.
// The tensors' bytes are read past, never loaded; external data is not
// opened. It reads
// the protobuf of ModelProto.graph.initializer directly: no ONNX Runtime.
//
// The count is the graph's, not the checkpoint's: parts the export pruned
// (BERT's unused pooler) are not in it.
func Parameters(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	p := &pbReader{r: bufio.NewReaderSize(f, 1<<16), f: f}
	n, err := p.model(st.Size())
	if err != nil {
		return 0, fmt.Errorf("%s: byte %d: not an ONNX model: %w", path, p.off, err)
	}
	return n, nil
}

// weightTypes are the TensorProto.DataType values of tensors that hold
// weights: FLOAT, UINT8, INT8, FLOAT16, DOUBLE, BFLOAT16, the FLOAT8
// kinds, UINT4, INT4.
var weightTypes = map[uint64]bool{1: true, 2: true, 3: true, 10: true, 11: true, 16: true, 17: true, 18: true, 19: true, 20: true, 21: true, 22: true}

// pbReader reads protobuf wire format from r, counting the bytes read.
type pbReader struct {
	r   *bufio.Reader
	f   io.ReadSeeker // under r: a long skip (a tensor's bytes) seeks
	off int64
}

var errTruncated = errors.New("truncated")

func (p *pbReader) varint() (uint64, error) {
	var v uint64
	for shift := uint(0); shift < 64; shift += 7 {
		b, err := p.r.ReadByte()
		if err != nil {
			return 0, errTruncated
		}
		p.off++
		v |= uint64(b&0x7f) << shift
		if b < 0x80 {
			return v, nil
		}
	}
	return 0, errors.New("varint longer than 10 bytes")
}

func (p *pbReader) skip(n int64) error {
	if b := int64(p.r.Buffered()); p.f != nil && n > b+1<<20 {
		if _, err := p.r.Discard(int(b)); err != nil {
			return err
		}
		if _, err := p.f.Seek(n-b, io.SeekCurrent); err != nil {
			return err
		}
		p.r.Reset(p.f)
		p.off += n
		return nil
	}
	for n > 0 {
		k, err := p.r.Discard(int(min(n, 1<<30)))
		p.off += int64(k)
		n -= int64(k)
		if err != nil {
			return errTruncated
		}
	}
	return nil
}

// field reads a field's tag; for a length-delimited field (wire type 2)
// it also reads the length, checked against end.
func (p *pbReader) field(end int64) (num, wire uint64, n int64, err error) {
	tag, err := p.varint()
	if err != nil {
		return 0, 0, 0, err
	}
	num, wire = tag>>3, tag&7
	if wire == 2 {
		l, err := p.varint()
		if err != nil {
			return 0, 0, 0, err
		}
		if l > uint64(end-p.off) {
			return 0, 0, 0, fmt.Errorf("field %d: length %d past the end of its message", num, l)
		}
		n = int64(l)
	}
	return num, wire, n, nil
}

// skipValue skips the value of a field of the given wire type (n: the
// length of a wire-type-2 value).
func (p *pbReader) skipValue(wire uint64, n int64) error {
	switch wire {
	case 0:
		_, err := p.varint()
		return err
	case 1:
		return p.skip(8)
	case 2:
		return p.skip(n)
	case 5:
		return p.skip(4)
	}
	return fmt.Errorf("wire type %d", wire)
}

// model reads a ModelProto of size bytes: its graph is field 7.
func (p *pbReader) model(size int64) (int64, error) {
	var total int64
	graphs := 0
	for p.off < size {
		num, wire, n, err := p.field(size)
		if err != nil {
			return 0, err
		}
		if num == 7 && wire == 2 {
			c, err := p.graph(p.off + n)
			if err != nil {
				return 0, err
			}
			total += c
			graphs++
			continue
		}
		if err := p.skipValue(wire, n); err != nil {
			return 0, err
		}
	}
	if graphs == 0 {
		return 0, errors.New("no graph")
	}
	return total, nil
}

// graph reads a GraphProto ending at end: its initializers are field 5.
func (p *pbReader) graph(end int64) (int64, error) {
	var total int64
	for p.off < end {
		num, wire, n, err := p.field(end)
		if err != nil {
			return 0, err
		}
		if num == 5 && wire == 2 {
			c, err := p.tensor(p.off + n)
			if err != nil {
				return 0, err
			}
			total += c
			continue
		}
		if err := p.skipValue(wire, n); err != nil {
			return 0, err
		}
	}
	if p.off != end {
		return 0, errors.New("graph overruns its length")
	}
	return total, nil
}

// tensor reads a TensorProto ending at end and returns its element count
// when it holds weights (rank ≥ 1, a weight type), else 0. dims are field
// 1 (packed or not), data_type field 2.
func (p *pbReader) tensor(end int64) (int64, error) {
	var dims []int64
	var dtype uint64
	var name string
	for p.off < end {
		num, wire, n, err := p.field(end)
		if err != nil {
			return 0, err
		}
		switch {
		case num == 1 && wire == 0:
			d, err := p.varint()
			if err != nil {
				return 0, err
			}
			dims = append(dims, int64(d))
		case num == 1 && wire == 2:
			stop := p.off + n
			for p.off < stop {
				d, err := p.varint()
				if err != nil {
					return 0, err
				}
				dims = append(dims, int64(d))
			}
		case num == 2 && wire == 0:
			if dtype, err = p.varint(); err != nil {
				return 0, err
			}
		case num == 8 && wire == 2 && n <= 1<<12:
			b := make([]byte, n)
			if _, err := io.ReadFull(p.r, b); err != nil {
				return 0, errTruncated
			}
			p.off += n
			name = string(b)
		default:
			if err := p.skipValue(wire, n); err != nil {
				return 0, err
			}
		}
	}
	if p.off != end {
		return 0, errors.New("tensor overruns its length")
	}
	if len(dims) == 0 || !weightTypes[dtype] || strings.HasSuffix(name, "_scale") || strings.HasSuffix(name, "_zero_point") {
		return 0, nil
	}
	c := int64(1)
	for _, d := range dims {
		if d < 0 || (d > 0 && c > (1<<62)/d) {
			return 0, fmt.Errorf("tensor dimension %d out of range", d)
		}
		c *= d
	}
	return c, nil
}
