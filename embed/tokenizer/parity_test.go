package tokenizer_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/embed/models"
	"github.com/retrievalbench/retrievalbench/embed/tokenizer"
	"github.com/retrievalbench/retrievalbench/internal/testenv"
)

// parityFile is what embed/testdata/parity/make_parity.py writes: the
// Hugging Face tokenizers library's ids for fixed texts.
type parityFile struct {
	Model           string `json:"model"`
	TokenizerSHA256 string `json:"tokenizer_sha256"`
	MaxTokens       int    `json:"max_tokens"`
	Generator       string `json:"generator"`
	Cases           []struct {
		Name      string  `json:"name"`
		Text      string  `json:"text"`
		IDs       []int64 `json:"ids"`
		Truncated bool    `json:"truncated"`
	} `json:"cases"`
}

// modelTokenizer fetches m into the test cache if needed (idempotent: a
// checksum pass when present) and loads its tokenizer, or stops t.
func modelTokenizer(t testing.TB, m models.Model) *tokenizer.Tokenizer {
	t.Helper()
	cache := testenv.CacheDir()
	if err := models.Fetch(t.Context(), cache, m, testLog{t}); err != nil {
		testenv.Missing(t, testenv.Models, err.Error())
	}
	tok, err := tokenizer.Load(m.Path(cache, models.TokenizerFile))
	require.NoError(t, err)
	return tok
}

type testLog struct{ t testing.TB }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Logf("%s", bytes.TrimSuffix(p, []byte("\n")))
	return len(p), nil
}

// TestParityWithHuggingFace checks that the Go tokenizer gives exactly the
// ids of the Hugging Face tokenizers library for every parity text and
// every manifest model.
func TestParityWithHuggingFace(t *testing.T) {
	ms, err := models.Manifest()
	require.NoError(t, err)
	for _, m := range ms {
		t.Run(m.ID, func(t *testing.T) {
			path := filepath.Join("..", "testdata", "parity", m.ID+".json")
			data, err := os.ReadFile(path)
			require.NoError(t, err, "every manifest model needs parity data: run make_parity.py")
			var pf parityFile
			require.NoError(t, json.Unmarshal(data, &pf), path)
			tf, _ := m.File(models.TokenizerFile)
			require.Equal(t, tf.SHA256, pf.TokenizerSHA256, "%s was made with another tokenizer.json", path)
			require.Equal(t, m.MaxTokens, pf.MaxTokens, "%s was made with another max_tokens", path)
			require.GreaterOrEqual(t, len(pf.Cases), 25, path)

			tok := modelTokenizer(t, m)
			for _, c := range pf.Cases {
				got := tok.Encode(c.Text, pf.MaxTokens)
				if diff := cmp.Diff(c.IDs, got.IDs); diff != "" {
					t.Errorf("%s: ids differ from %s (-want +got):\n%s", c.Name, pf.Generator, diff)
				}
				if got.Truncated != c.Truncated {
					t.Errorf("%s: Truncated = %v, want %v", c.Name, got.Truncated, c.Truncated)
				}
				if len(got.TypeIDs) != len(got.IDs) || len(got.Mask) != len(got.IDs) {
					t.Errorf("%s: %d ids, %d type ids, %d mask", c.Name, len(got.IDs), len(got.TypeIDs), len(got.Mask))
				}
			}
		})
	}
}
