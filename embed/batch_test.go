package embed

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestBatches(t *testing.T) {
	tests := []struct {
		name    string
		lengths []int
		size    int
		want    [][]int
		reason  string
	}{
		{"empty", nil, 4, nil, "no texts, no batches"},
		{"sorted-desc", []int{3, 9, 5, 9, 1}, 2, [][]int{{1, 3}, {2, 0}, {4}}, "longest first, equal lengths by index, last batch short"},
		{"one-batch", []int{2, 2, 2}, 32, [][]int{{0, 1, 2}}, "all fit in one batch; ties keep input order"},
		{"size-zero", []int{1, 2}, 0, [][]int{{1}, {0}}, "a size below 1 is treated as 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, batches(tt.lengths, tt.size)); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tt.reason, diff)
			}
		})
	}
}
