package datasets

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

// makeTasks builds tasks "repo/i" for the given per-repo counts.
func makeTasks(counts map[string]int) []Task {
	var out []Task
	repos := make([]string, 0, len(counts))
	for r := range counts {
		repos = append(repos, r)
	}
	slices.Sort(repos)
	for _, r := range repos {
		for i := range counts[r] {
			out = append(out, Task{ID: fmt.Sprintf("%s/%02d", r, i), CorpusID: r, Meta: Meta{Repo: r}})
		}
	}
	return out
}

func perRepo(ts []Task) map[string]int {
	m := map[string]int{}
	for _, t := range ts {
		m[t.Meta.Repo]++
	}
	return m
}

func ids(ts []Task) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.ID
	}
	return out
}

func TestApportionByHand(t *testing.T) {
	tests := []struct {
		name   string
		counts map[string]int
		size   int
		want   map[string]int
		reason string
	}{
		{
			name:   "remainders decide",
			counts: map[string]int{"a": 5, "b": 3, "c": 2},
			size:   4,
			// quotas 4·5/10=2.0, 4·3/10=1.2, 4·2/10=0.8 → floors 2,1,0 (3 seats);
			// remainders 0, 2, 8 (over 10) → the last seat goes to c.
			want:   map[string]int{"a": 2, "b": 1, "c": 1},
			reason: "largest remainder gets the leftover seat",
		},
		{
			name:   "tie by name",
			counts: map[string]int{"x": 1, "b": 1, "a": 1},
			size:   2,
			// quotas 2/3 each, floors 0, remainders all 2 → a, b win by name.
			want:   map[string]int{"a": 1, "b": 1, "x": 0},
			reason: "equal remainders are broken by repository name ascending",
		},
		{
			name:   "Alabama-style",
			counts: map[string]int{"big": 14, "mid": 4, "tiny": 1},
			size:   10,
			// quotas 140/19=7.368, 40/19=2.105, 10/19=0.526 → floors 7,2,0 (9);
			// remainders 7, 2, 10 → tiny gets the tenth seat.
			want:   map[string]int{"big": 7, "mid": 2, "tiny": 1},
			reason: "a small repository with the largest remainder is not starved",
		},
		{
			name:   "size above total",
			counts: map[string]int{"a": 2, "b": 1},
			size:   30,
			want:   map[string]int{"a": 2, "b": 1},
			reason: "never more seats than tasks",
		},
		{
			name:   "zero size",
			counts: map[string]int{"a": 2},
			size:   0,
			want:   map[string]int{"a": 0},
			reason: "size 0 gives every key zero",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Apportion(tc.counts, tc.size)
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("%s: Apportion(%v, %d) (-want +got):\n%s", tc.reason, tc.counts, tc.size, d)
			}
		})
	}
}

func TestSplitSizesAndStratification(t *testing.T) {
	counts := map[string]int{"psf/black": 10, "locust": 7, "ciphey": 1, "poetry": 12, "web3": 9}
	tasks := makeTasks(counts)
	cfg := DefaultSplitConfig()
	cfg.Salt = "test"
	cfg.SmallSize = 10

	dev, err := Split(tasks, SplitDev, cfg)
	require.NoError(t, err)
	test, err := Split(tasks, SplitTest, cfg)
	require.NoError(t, err)

	// Per repo: dev gets ⌊n/2⌋, test the rest.
	wantDev, wantTest := map[string]int{}, map[string]int{}
	for r, n := range counts {
		if n/2 > 0 {
			wantDev[r] = n / 2
		}
		wantTest[r] = n - n/2
	}
	if d := cmp.Diff(wantDev, perRepo(dev)); d != "" {
		t.Errorf("dev per repo (-want +got):\n%s", d)
	}
	if d := cmp.Diff(wantTest, perRepo(test)); d != "" {
		t.Errorf("test per repo (-want +got):\n%s", d)
	}
	// dev and test partition all.
	all := append(ids(dev), ids(test)...)
	slices.Sort(all)
	if d := cmp.Diff(ids(tasks), all); d != "" {
		t.Errorf("dev ∪ test is not the dataset (-want +got):\n%s", d)
	}

	for _, tc := range []struct {
		split, parent string
		pool          []Task
	}{{SplitSmallDev, SplitDev, dev}, {SplitSmallTest, SplitTest, test}} {
		got, err := Split(tasks, tc.split, cfg)
		require.NoError(t, err)
		if len(got) != cfg.SmallSize {
			t.Errorf("%s: %d tasks, want %d", tc.split, len(got), cfg.SmallSize)
		}
		in := map[string]bool{}
		for _, x := range tc.pool {
			in[x.ID] = true
		}
		for _, x := range got {
			if !in[x.ID] {
				t.Errorf("%s: task %s is not in %s", tc.split, x.ID, tc.parent)
			}
		}
		if d := cmp.Diff(Apportion(perRepo(tc.pool), cfg.SmallSize), withZeros(perRepo(got), perRepo(tc.pool))); d != "" {
			t.Errorf("%s per repo is not the Hamilton apportionment of %s (-want +got):\n%s", tc.split, tc.parent, d)
		}
	}
}

func withZeros(m, keys map[string]int) map[string]int {
	out := map[string]int{}
	for k := range keys {
		out[k] = m[k]
	}
	return out
}

func TestSplitDeterminism(t *testing.T) {
	tasks := makeTasks(map[string]int{"a": 9, "b": 14, "c": 5})
	cfg := DefaultSplitConfig()
	cfg.Salt = "repoqa-python-docstring"
	cfg.SmallSize = 8

	shuffled := slices.Clone(tasks)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })

	for _, split := range SplitNames() {
		a, err := Split(tasks, split, cfg)
		require.NoError(t, err)
		b, err := Split(tasks, split, cfg)
		require.NoError(t, err)
		if d := cmp.Diff(ids(a), ids(b)); d != "" {
			t.Errorf("%s: two calls differ (-first +second):\n%s", split, d)
		}
		c, err := Split(shuffled, split, cfg)
		require.NoError(t, err)
		got := ids(c)
		slices.Sort(got)
		want := ids(a)
		slices.Sort(want)
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s: input order changed the chosen set (-ordered +shuffled):\n%s", split, d)
		}
	}

	// Another salt must give another dev split (a regression guard that the
	// salt is used at all); with 28 tasks a collision is vanishingly rare.
	other := cfg
	other.Salt = "repoqa-python-official-desc"
	a, _ := Split(tasks, SplitDev, cfg)
	b, _ := Split(tasks, SplitDev, other)
	if slices.Equal(ids(a), ids(b)) {
		t.Errorf("salts %q and %q gave the same dev split", cfg.Salt, other.Salt)
	}
}

func TestSplitErrors(t *testing.T) {
	tests := []struct {
		name    string
		tasks   []Task
		split   string
		cfg     SplitConfig
		wantErr string
		reason  string
	}{
		{"unknown split", makeTasks(map[string]int{"a": 2}), "validation", DefaultSplitConfig(),
			"valid: all, dev, test, small_dev, small_test", "the error lists the valid names"},
		{"duplicate id", []Task{{ID: "x"}, {ID: "x"}}, SplitDev, DefaultSplitConfig(),
			`duplicate task ID "x"`, "duplicate IDs make the order ambiguous"},
		{"negative size", nil, SplitSmallDev, SplitConfig{SmallSize: -1},
			"SmallSize -1 is negative", "config is validated"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Split(tc.tasks, tc.split, tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: Split error = %v, want containing %q", tc.reason, err, tc.wantErr)
			}
		})
	}
}

func TestSplitAllKeepsOrder(t *testing.T) {
	tasks := makeTasks(map[string]int{"b": 2, "a": 3})
	got, err := Split(tasks, SplitAll, DefaultSplitConfig())
	require.NoError(t, err)
	if d := cmp.Diff(ids(tasks), ids(got)); d != "" {
		t.Errorf("all (-want +got):\n%s", d)
	}
}

func TestSplitConfigOrDefault(t *testing.T) {
	def := DefaultSplitConfig()
	for _, tc := range []struct {
		name   string
		in     SplitConfig
		want   SplitConfig
		reason string
	}{
		{"zero", SplitConfig{}, SplitConfig{SmallSize: def.SmallSize, Seed: def.Seed, Salt: "ds"}, "an unset config is the default, salted with the dataset"},
		{"default", def, SplitConfig{SmallSize: def.SmallSize, Seed: def.Seed, Salt: "ds"}, "the default's empty salt is filled"},
		{"salted", SplitConfig{SmallSize: 5, Seed: 1, Salt: "mine"}, SplitConfig{SmallSize: 5, Seed: 1, Salt: "mine"}, "a caller's salt is kept"},
		{"seed only", SplitConfig{Seed: 7}, SplitConfig{Seed: 7, Salt: "ds"}, "a partly set config is not defaulted field by field"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.in.OrDefault("ds")); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}
