package synth

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestWriteShapeAndDeterminism(t *testing.T) {
	cfg := Config{Queries: 20, Retrieved: 30, Judged: 10, MaxGrade: 3, DocPool: 1000, Seed: 5, Tag: "t"}
	var q1, r1, q2, r2 bytes.Buffer
	require.NoError(t, Write(&q1, &r1, cfg))
	require.NoError(t, Write(&q2, &r2, cfg))
	if !bytes.Equal(q1.Bytes(), q2.Bytes()) || !bytes.Equal(r1.Bytes(), r2.Bytes()) {
		t.Fatal("same seed, different output")
	}
	if got := strings.Count(r1.String(), "\n"); got != cfg.Queries*cfg.Retrieved {
		t.Errorf("run has %d lines, want %d", got, cfg.Queries*cfg.Retrieved)
	}
	if got := strings.Count(q1.String(), "\n"); got != cfg.Queries*cfg.Judged {
		t.Errorf("qrels have %d lines, want %d", got, cfg.Queries*cfg.Judged)
	}
	grades := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(q1.String()), "\n") {
		f := strings.Fields(line)
		require.Len(t, f, 4, line)
		grades[f[3]] = true
	}
	for _, g := range []string{"0", "1", "2", "3"} {
		if !grades[g] {
			t.Errorf("grade %s never generated", g)
		}
	}
	cfg.Seed = 6
	var q3, r3 bytes.Buffer
	require.NoError(t, Write(&q3, &r3, cfg))
	if bytes.Equal(r1.Bytes(), r3.Bytes()) {
		t.Error("different seeds, same run")
	}
}

func TestValidate(t *testing.T) {
	for name, cfg := range map[string]Config{
		"negative": {Queries: -1, DocPool: 100, Tag: "t"},
		"pool":     {Queries: 1, Retrieved: 100, Judged: 10, DocPool: 50, Tag: "t"},
		"tag":      {Queries: 1, DocPool: 100},
	} {
		if err := cfg.Validate(); err == nil {
			t.Errorf("%s: want an error for %+v", name, cfg)
		}
	}
	require.NoError(t, DefaultConfig().Validate())
}
