package datafile

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/retrievalbench/retrievalbench/fileline/filelinetest"
)

func TestJSONError(t *testing.T) {
	type obj struct {
		N int `json:"n"`
	}
	for _, tc := range []struct {
		name   string
		data   string
		decode func([]byte) error
		want   string
		reason string
	}{
		{"syntax", "{\n\"n\": 1,\n}", func(b []byte) error { return json.Unmarshal(b, &obj{}) }, "f.json:3: invalid character '}'", "a syntax error's offset gives its line"},
		{"type", "{\n\n\"n\": \"x\"}", func(b []byte) error { return json.Unmarshal(b, &obj{}) }, "f.json:3: json: cannot unmarshal", "so does a type error's"},
		{"truncated", "{\n\"n\": \n\n", func(b []byte) error { return json.NewDecoder(bytes.NewReader(b)).Decode(&obj{}) }, "f.json:2: unexpected EOF", "a decoder out of input: the last line with text"},
		{"unknown field", `{"m": 1}`, func(b []byte) error {
			dec := json.NewDecoder(bytes.NewReader(b))
			dec.DisallowUnknownFields()
			return dec.Decode(&obj{})
		}, `f.json: json: unknown field "m"`, "no offset, no line"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			derr := tc.decode([]byte(tc.data))
			err := JSONError("f.json", []byte(tc.data), derr)
			if err == nil || !errors.Is(err, derr) || len(err.Error()) < len(tc.want) || err.Error()[:len(tc.want)] != tc.want {
				t.Errorf("%s: JSONError = %v, want prefix %q wrapping the decoder's error", tc.reason, err, tc.want)
			}
			filelinetest.Want(t, err, tc.want)
		})
	}
}
