package trecfmt

import (
	"bytes"
	"testing"

	"github.com/retrievalbench/retrievalbench/internal/synth"
)

// BenchmarkReadJudgments reads 500,000 qrels lines (1,000 queries × 500
// judged documents, as the dense shape of docs/performance.md) as
// ReadJudgmentsFile does, on one worker and on two.
func BenchmarkReadJudgments(b *testing.B) {
	cfg := synth.DefaultConfig()
	cfg.Queries, cfg.Retrieved, cfg.Judged = 1000, 10, 500
	var qrels, run bytes.Buffer
	if err := synth.Write(&qrels, &run, cfg); err != nil {
		b.Fatal(err)
	}
	data := qrels.Bytes()
	for _, workers := range []int{1, 2} {
		b.Run(map[int]string{1: "workers=1", 2: "workers=2"}[workers], func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, ok, err := readJudgments(bytes.NewReader(data), int64(len(data)), workers, qrelsBlock); !ok || err != nil {
					b.Fatal(ok, err)
				}
			}
		})
	}
}
