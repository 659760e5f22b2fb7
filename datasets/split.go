package datasets

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strings"
)

// Split names. "all" is the whole dataset; "dev" and "test" partition it;
// "small_dev" and "small_test" are about SplitConfig.SmallSize tasks drawn
// from dev and test.
const (
	SplitAll       = "all"
	SplitDev       = "dev"
	SplitTest      = "test"
	SplitSmallDev  = "small_dev"
	SplitSmallTest = "small_test"
)

// SplitNames lists the valid split names in a fixed order.
func SplitNames() []string {
	return []string{SplitAll, SplitDev, SplitTest, SplitSmallDev, SplitSmallTest}
}

// SplitConfig tunes Split.
type SplitConfig struct {
	// SmallSize is the number of tasks in small_dev and small_test (fewer
	// when dev or test is smaller).
	SmallSize int
	// Seed seeds every shuffle. Changing it changes every split.
	Seed uint64
	// Salt is mixed into the seed, usually the dataset name, so that two
	// datasets over the same repositories are not split alike.
	Salt string
}

// DefaultSplitSeed is the fixed seed of DefaultSplitConfig.
const DefaultSplitSeed uint64 = 20240623

// DefaultSplitConfig returns SmallSize 30 and DefaultSplitSeed with no salt;
// loaders set Salt to their dataset name.
func DefaultSplitConfig() SplitConfig {
	return SplitConfig{SmallSize: 30, Seed: DefaultSplitSeed}
}

// OrDefault returns c, or DefaultSplitConfig when c is the zero value,
// with Salt set to salt when it is empty: how loaders complete the
// SplitConfig their caller gave.
func (c SplitConfig) OrDefault(salt string) SplitConfig {
	if c == (SplitConfig{}) {
		c = DefaultSplitConfig()
	}
	if c.Salt == "" {
		c.Salt = salt
	}
	return c
}

// Validate reports a config Split cannot use.
func (c SplitConfig) Validate() error {
	if c.SmallSize < 0 {
		return fmt.Errorf("split config: SmallSize %d is negative", c.SmallSize)
	}
	return nil
}

// Split returns the tasks of the named split, in their input order.
//
// The split is stratified by repository (Task.Meta.Repo, or CorpusID when
// Repo is empty) and deterministic:
//
//  1. Each repository's tasks are sorted by ID and shuffled with a PCG
//     generator seeded by (cfg.Seed, FNV-64a of cfg.Salt + repo), so a
//     repository's assignment does not depend on the other repositories nor
//     on the input order.
//  2. The first ⌊n/2⌋ shuffled tasks of a repository go to dev, the rest to
//     test: with an odd count test gets the extra task, and a repository
//     with a single task contributes it to test only.
//  3. small_dev (small_test) takes S = min(cfg.SmallSize, |dev|) tasks from
//     dev (test). Repository r with n_r of the N pool tasks gets
//     ⌊S·n_r/N⌋ seats, and the S − Σ⌊…⌋ seats left go one each to the
//     repositories with the largest remainders S·n_r mod N (Hamilton's
//     largest-remainder method), ties broken by repository name ascending.
//     A repository contributes the first seats of its shuffled order.
//
// An unknown split name is an error that lists the valid ones; so are
// duplicate task IDs, which would make the order ambiguous.
func Split(tasks []Task, split string, cfg SplitConfig) ([]Task, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if !slices.Contains(SplitNames(), split) {
		return nil, fmt.Errorf("unknown split %q (valid: %s)", split, strings.Join(SplitNames(), ", "))
	}
	seen := make(map[string]bool, len(tasks))
	for _, t := range tasks {
		if seen[t.ID] {
			return nil, fmt.Errorf("split %s: duplicate task ID %q", split, t.ID)
		}
		seen[t.ID] = true
	}
	if split == SplitAll {
		return slices.Clone(tasks), nil
	}

	// Per repository: task IDs in shuffled order, split in halves.
	byRepo := map[string][]string{}
	for _, t := range tasks {
		k := stratum(t)
		byRepo[k] = append(byRepo[k], t.ID)
	}
	dev, test := map[string][]string{}, map[string][]string{}
	for repo, ids := range byRepo {
		slices.Sort(ids)
		r := rand.New(rand.NewPCG(cfg.Seed, saltHash(cfg.Salt, repo)))
		r.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
		h := len(ids) / 2
		dev[repo], test[repo] = ids[:h], ids[h:]
	}

	var chosen map[string][]string
	switch split {
	case SplitDev:
		chosen = dev
	case SplitTest:
		chosen = test
	case SplitSmallDev:
		chosen = small(dev, cfg.SmallSize)
	case SplitSmallTest:
		chosen = small(test, cfg.SmallSize)
	}
	keep := map[string]bool{}
	for _, ids := range chosen {
		for _, id := range ids {
			keep[id] = true
		}
	}
	out := make([]Task, 0, len(keep))
	for _, t := range tasks {
		if keep[t.ID] {
			out = append(out, t)
		}
	}
	return out, nil
}

// small draws size tasks from pool by Hamilton apportionment (see Split).
func small(pool map[string][]string, size int) map[string][]string {
	counts := make(map[string]int, len(pool))
	for repo, ids := range pool {
		counts[repo] = len(ids)
	}
	seats := Apportion(counts, size)
	out := make(map[string][]string, len(seats))
	for repo, n := range seats {
		out[repo] = pool[repo][:n]
	}
	return out
}

// Apportion distributes min(size, Σcounts) seats over the keys of counts in
// proportion to their counts by Hamilton's largest-remainder method: each
// key gets ⌊S·c/N⌋, the remaining seats go one each to the largest
// remainders S·c mod N, ties broken by key ascending. Arithmetic is exact
// (integers), so the result never depends on float rounding.
func Apportion(counts map[string]int, size int) map[string]int {
	total := 0
	for _, c := range counts {
		total += c
	}
	s := min(size, total)
	out := make(map[string]int, len(counts))
	if s <= 0 || total == 0 {
		for k := range counts {
			out[k] = 0
		}
		return out
	}
	type rem struct {
		key string
		r   int
	}
	rems := make([]rem, 0, len(counts))
	given := 0
	for k, c := range counts {
		out[k] = s * c / total
		given += out[k]
		rems = append(rems, rem{k, s * c % total})
	}
	slices.SortFunc(rems, func(a, b rem) int {
		if c := cmp.Compare(b.r, a.r); c != 0 {
			return c
		}
		return cmp.Compare(a.key, b.key)
	})
	for i := 0; given < s; i++ {
		out[rems[i].key]++
		given++
	}
	return out
}

func stratum(t Task) string {
	if t.Meta.Repo != "" {
		return t.Meta.Repo
	}
	return t.CorpusID
}

func saltHash(salt, repo string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(salt))
	h.Write([]byte{0})
	h.Write([]byte(repo))
	return h.Sum64()
}
