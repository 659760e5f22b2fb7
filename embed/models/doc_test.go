package models

import (
	"bytes"
	"encoding/json"
	"os"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDocManifests decodes every JSON block of docs/models.md as a user
// manifest, strictly (a misspelt key fails), and checks each entry that
// needs no folder, so the documented examples stay valid.
func TestDocManifests(t *testing.T) {
	data, err := os.ReadFile("../../docs/models.md")
	require.NoError(t, err)
	blocks := regexp.MustCompile("(?s)```json\n(.*?)```").FindAllSubmatch(data, -1)
	require.GreaterOrEqual(t, len(blocks), 2)
	checked := 0
	for i, b := range blocks {
		dec := json.NewDecoder(bytes.NewReader(b[1]))
		dec.DisallowUnknownFields()
		var top struct{ Models []Model }
		require.NoError(t, dec.Decode(&top), "block %d", i+1)
		for _, m := range top.Models {
			if m.Dir != "" {
				continue // an example folder: derived when it exists
			}
			require.NoError(t, CheckUser(m), "block %d, model %s", i+1, m.ID)
			checked++
		}
	}
	require.Positive(t, checked)
}
