package bm25

import (
	"errors"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestConfigsValid(t *testing.T) {
	var names []string
	hashes := map[string]string{}
	for _, c := range Configs() {
		names = append(names, c.Name)
		if err := c.Validate(); err != nil {
			t.Errorf("%s: Validate: %v", c.Name, err)
		}
		if other, dup := hashes[c.Hash()]; dup {
			t.Errorf("%s and %s have the same hash", c.Name, other)
		}
		hashes[c.Hash()] = c.Name
		got, err := ConfigByName(c.Name)
		if err != nil || got != c {
			t.Errorf("ConfigByName(%q) = %+v, %v; want %+v", c.Name, got, err, c)
		}
	}
	if diff := cmp.Diff([]string{"unicode61", "porter", "code", "code-weighted"}, names); diff != "" {
		t.Errorf("Configs names or order changed (-want +got):\n%s", diff)
	}
	if err := DefaultConfig().Validate(); err != nil {
		t.Errorf("DefaultConfig: %v", err)
	}
	if _, err := ConfigByName("bm42"); err == nil {
		t.Error("ConfigByName(bm42): no error")
	}
}

func TestConfigValidateErrors(t *testing.T) {
	ok := Config{Name: "x", Tokenizer: TokCode, SymbolWeight: 1, PathWeight: 1, BodyWeight: 1}
	tests := []struct {
		name   string
		edit   func(*Config)
		reason string
	}{
		{"empty-name", func(c *Config) { c.Name = "" }, "the name keys subtests and files"},
		{"name-chars", func(c *Config) { c.Name = "Code Weighted/2" }, "capitals, spaces and slashes break test and file names"},
		{"tokenizer", func(c *Config) { c.Tokenizer = "trigram" }, "only three tokenizers exist"},
		{"no-tokenizer", func(c *Config) { c.Tokenizer = "" }, "the zero Config is not usable"},
		{"negative", func(c *Config) { c.PathWeight = -1 }, "a negative weight would reward non-matches"},
		{"nan", func(c *Config) { c.BodyWeight = math.NaN() }, "NaN scores cannot be ordered"},
		{"inf", func(c *Config) { c.SymbolWeight = math.Inf(1) }, "infinite scores cannot be ordered"},
		{"all-zero", func(c *Config) { c.SymbolWeight, c.PathWeight, c.BodyWeight = 0, 0, 0 }, "every score would be zero"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ok
			tt.edit(&c)
			err := c.Validate()
			if !errors.Is(err, ErrInvalidConfig) {
				t.Errorf("Validate(%+v) = %v, want ErrInvalidConfig (%s)", c, err, tt.reason)
			}
			if _, err := New(c, testOptions(t)); !errors.Is(err, ErrInvalidConfig) {
				t.Errorf("New(%+v) = %v, want ErrInvalidConfig", c, err)
			}
		})
	}
	zeroPath := ok
	zeroPath.PathWeight = 0
	if err := zeroPath.Validate(); err != nil {
		t.Errorf("a zero weight on one column is allowed: %v", err)
	}
}

func TestConfigHashCoversEveryField(t *testing.T) {
	base := DefaultConfig()
	// The hashes the committed golden files record
	// (golden/*/*/bm25/*.json): a change to the hash, the index version or a
	// named config makes every BM25 baseline stale, so it must be deliberate.
	for name, want := range map[string]string{
		"unicode61":     "4ac610bce499c3c8bc033a6d24e16758ec622ddc0b8b70b2a8f19b0078143003",
		"porter":        "0a2261bbef5d76b8e042350bfa77250b1936ea7d24a336ede50400ff970cbfcf",
		"code":          "b8569c0d4645f784457a194f625cf41dd2a1fd907aba3359248212324f6f2b93",
		"code-weighted": "513030e0e844cd0b18ba8e92968bfe17fec62c9005c066f91a5d3e9c96038d33",
	} {
		c, err := ConfigByName(name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
		} else if got := c.Hash(); got != want {
			t.Errorf("%s: Hash = %s, want the golden files' %s", name, got, want)
		}
	}
	edits := map[string]func(*Config){
		"Name":         func(c *Config) { c.Name += "x" },
		"Tokenizer":    func(c *Config) { c.Tokenizer = TokPorter },
		"SymbolWeight": func(c *Config) { c.SymbolWeight += 0.5 },
		"PathWeight":   func(c *Config) { c.PathWeight += 0.5 },
		"BodyWeight":   func(c *Config) { c.BodyWeight += 0.5 },
	}
	for field, edit := range edits {
		c := base
		edit(&c)
		if c.Hash() == base.Hash() {
			t.Errorf("changing %s does not change Hash", field)
		}
	}
	// Field boundaries are unambiguous: moving text between fields changes the hash.
	a := Config{Name: "ab", Tokenizer: "c"}
	b := Config{Name: "a", Tokenizer: "bc"}
	if a.Hash() == b.Hash() {
		t.Error("Hash confuses field boundaries")
	}
}
