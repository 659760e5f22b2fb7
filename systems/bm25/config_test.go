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
	if base.Hash() != DefaultConfig().Hash() {
		t.Fatal("Hash is not stable")
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
