package datafile

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
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

func TestReadJSON(t *testing.T) {
	dir := t.TempDir()
	type cfg struct {
		Name string `json:"name"`
	}
	good := filepath.Join(dir, "good.json")
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(good, []byte(`{"name": "x"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte("{\n  \"nmae\": \"x\"\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var c cfg
	if err := ReadJSON(good, &c); err != nil || c.Name != "x" {
		t.Errorf("ReadJSON(good) = %+v, %v; want name x", c, err)
	}
	if err := ReadJSON(bad, &c); err == nil || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), "nmae") {
		t.Errorf("ReadJSON(misspelt key) = %v, want an error naming the file and the key", err)
	}
	if err := ReadJSON(filepath.Join(dir, "absent.json"), &c); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadJSON(missing) = %v, want fs.ErrNotExist", err)
	}
}
