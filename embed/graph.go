package embed

import (
	"fmt"
	"math"
	"strings"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/retrievalbench/retrievalbench/embed/models"
)

// Graph input and output names, as Hugging Face and sentence-transformers
// exports spell them.
const (
	inputIDs      = "input_ids"
	inputMask     = "attention_mask"
	inputTypes    = "token_type_ids"
	inputPosition = "position_ids"

	outputHidden   = "last_hidden_state"
	outputTokens   = "token_embeddings"
	outputSentence = "sentence_embedding"
)

// graphIO is what Embedder feeds a graph and reads from it.
type graphIO struct {
	inputs    []string // input_ids, attention_mask, then token_type_ids and position_ids when taken
	types     bool     // takes token_type_ids
	positions bool     // takes position_ids
	output    string
	pooled    bool // the output is [batch, hidden] (a sentence embedding), not per token
	half      bool // the output is float16
	width     int  // the output's last dimension
}

// inspect reads the inputs and outputs of the model at path and picks the
// output to read (m.Output, else by name, else the first float output of
// rank 2 or 3), checking its width against m.Width().
func inspect(path string, m models.Model) (graphIO, error) {
	ins, outs, err := ort.GetInputOutputInfo(path)
	if err != nil {
		return graphIO{}, fmt.Errorf("embed: %s: not a loadable ONNX model: %w", path, err)
	}
	g := graphIO{width: m.Width()}
	have := map[string]bool{}
	for _, in := range ins {
		switch in.Name {
		case inputIDs, inputMask, inputTypes, inputPosition:
			if in.DataType != ort.TensorElementDataTypeInt64 {
				return graphIO{}, fmt.Errorf("embed: %s: input %s is %s, want int64", path, in.Name, in.DataType)
			}
			have[in.Name] = true
		default:
			return graphIO{}, fmt.Errorf("embed: %s: unexpected input %q (want %s, %s, %s, %s)", path, in.Name, inputIDs, inputMask, inputTypes, inputPosition)
		}
	}
	if !have[inputIDs] || !have[inputMask] {
		return graphIO{}, fmt.Errorf("embed: %s: model lacks %s or %s", path, inputIDs, inputMask)
	}
	g.inputs = []string{inputIDs, inputMask}
	if g.types = have[inputTypes]; g.types {
		g.inputs = append(g.inputs, inputTypes)
	}
	if g.positions = have[inputPosition]; g.positions {
		g.inputs = append(g.inputs, inputPosition)
	}

	usable := func(o ort.InputOutputInfo) bool {
		float := o.DataType == ort.TensorElementDataTypeFloat || o.DataType == ort.TensorElementDataTypeFloat16
		return o.OrtValueType == ort.ONNXTypeTensor && float && (len(o.Dimensions) == 2 || len(o.Dimensions) == 3)
	}
	var out *ort.InputOutputInfo
	var names []string
	for i := range outs {
		names = append(names, outs[i].Name)
	}
	if m.Output != "" {
		for i := range outs {
			if outs[i].Name == m.Output {
				out = &outs[i]
			}
		}
		if out == nil {
			return graphIO{}, fmt.Errorf("embed: %s: no output %q (the graph has %s)", path, m.Output, strings.Join(names, ", "))
		}
		if !usable(*out) {
			return graphIO{}, fmt.Errorf("embed: %s: output %q is not a float or float16 tensor of shape [batch, tokens, hidden] or [batch, hidden]", path, m.Output)
		}
	} else {
		for _, want := range []string{outputHidden, outputTokens, outputSentence} {
			for i := range outs {
				if out == nil && outs[i].Name == want && usable(outs[i]) {
					out = &outs[i]
				}
			}
		}
		for i := range outs {
			if out == nil && usable(outs[i]) {
				out = &outs[i]
			}
		}
		if out == nil {
			return graphIO{}, fmt.Errorf("embed: %s: no float output of shape [batch, tokens, hidden] or [batch, hidden] (outputs: %s)", path, strings.Join(names, ", "))
		}
	}
	g.output = out.Name
	g.pooled = len(out.Dimensions) == 2
	g.half = out.DataType == ort.TensorElementDataTypeFloat16
	if d := out.Dimensions[len(out.Dimensions)-1]; d > 0 && int(d) != g.width {
		// Name where the width was set: the embedded manifest, a user
		// manifest's entry (models add writes what it derived there), or
		// a folder read directly.
		src := models.ManifestName
		switch {
		case m.Origin == m.Dir && m.Dir != "":
			src = "derived from the folder " + m.Dir + " (1_Pooling/config.json or config.json)"
		case m.Origin != "" && m.Origin != models.OriginBuiltin:
			src = "set in " + m.Origin
		}
		what := fmt.Sprintf("the model's dimension is %d (%s)", m.Dimension, src)
		if m.HiddenSize != 0 {
			what = fmt.Sprintf("the model's hidden_size is %d (%s)", m.HiddenSize, src)
		} else if int(d) > m.Dimension {
			what += fmt.Sprintf(" (for Matryoshka truncation to %d set hidden_size %d)", m.Dimension, d)
		}
		return graphIO{}, fmt.Errorf("embed: %s: output %s has hidden size %d, %s", path, out.Name, d, what)
	}
	return g, nil
}

// halfToFloat converts IEEE 754 half precision bits to a float32.
func halfToFloat(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	frac := uint32(h) & 0x3ff
	switch {
	case exp == 0 && frac == 0:
		return math.Float32frombits(sign)
	case exp == 0: // subnormal: frac × 2^-24
		f := float32(frac) / (1 << 24)
		if sign != 0 {
			f = -f
		}
		return f
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | frac<<13)
	}
	return math.Float32frombits(sign | (exp+112)<<23 | frac<<13)
}
