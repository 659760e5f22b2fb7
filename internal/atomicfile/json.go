package atomicfile

import (
	"bytes"
	"encoding/json"
)

// MarshalJSON is the JSON form of every indented file the repository
// writes (run.json, cell files, quality-summary.json): two-space indent,
// no HTML escaping, a final newline.
func MarshalJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteJSON writes v as MarshalJSON does to path with WriteFile.
func WriteJSON(path string, v any) error {
	b, err := MarshalJSON(v)
	if err != nil {
		return err
	}
	return WriteFile(path, b)
}
