package datafile

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"

	"github.com/retrievalbench/retrievalbench/fileline"
)

// JSONError returns err, from decoding data read from file, as a
// *fileline.Error printing "file:line: err". The line is that of the offset a *json.SyntaxError or
// *json.UnmarshalTypeError carries; for io.ErrUnexpectedEOF (a
// json.Decoder that ran out of input) it is the last line that is not
// blank. Any other error has no position and reads "file: err".
func JSONError(file string, data []byte, err error) error {
	off := int64(-1)
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	case errors.Is(err, io.ErrUnexpectedEOF):
		off = int64(len(bytes.TrimRight(data, " \t\r\n")))
	}
	if off < 0 {
		return &fileline.Error{File: file, Err: err}
	}
	off = min(off, int64(len(data)))
	return &fileline.Error{File: file, Line: 1 + bytes.Count(data[:off], []byte("\n")), Err: err}
}

// ReadJSON decodes the one JSON value of file (gunzipped when it ends in
// .gz) into v, refusing unknown fields, so that a misspelt key is an error
// rather than a silent default. A decoding error reads as JSONError does;
// a missing file is the os error, for errors.Is(err, fs.ErrNotExist).
func ReadJSON(file string, v any) error {
	b, err := ReadAll(file)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return JSONError(file, b, err)
	}
	return nil
}
