package datafile

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestHugeLine reads a file whose second line is 100 MB long: EachLine
// hands it over whole, with the right line numbers around it.
func TestHugeLine(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and reads 100 MB (-short)")
	}
	file := filepath.Join(t.TempDir(), "huge.jsonl")
	huge := bytes.Repeat([]byte("x"), 100<<20)
	var buf bytes.Buffer
	buf.WriteString("{\"a\": 1}\n")
	buf.Write(huge)
	buf.WriteString("\n{\"b\": 2}\n")
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var lines []int
	var sizes []int
	err := EachLine(file, func(line int, b []byte) error {
		lines, sizes = append(lines, line), append(sizes, len(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 3 || lines[1] != 2 || lines[2] != 3 || sizes[1] != len(huge)+1 {
		t.Errorf("lines %v of sizes %v; want 1, 2, 3 with line 2 of %d bytes", lines, sizes, len(huge)+1)
	}
}
