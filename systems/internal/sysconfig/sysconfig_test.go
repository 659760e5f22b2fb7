package sysconfig

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
)

var errInvalid = errors.New("invalid test config")

func TestCheckName(t *testing.T) {
	for _, tc := range []struct {
		name, want, reason string
	}{
		{"code-weighted", "", "lower case, digits and '-' are allowed"},
		{"a_b.c9", "", "'_' and '.' are allowed"},
		{"", "empty name", "a config needs a name"},
		{"Code", `name "Code": only`, "upper case would clash on case-insensitive file systems"},
		{"a b", `name "a b": only`, "a space would split a subtest name"},
		{"a/b", `name "a/b": only`, "a slash would nest subtests and folders"},
	} {
		err := CheckName(errInvalid, tc.name)
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: CheckName(%q) = %v, want nil", tc.reason, tc.name, err)
			}
			continue
		}
		if !errors.Is(err, errInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: CheckName(%q) = %v, want %q wrapping the sentinel", tc.reason, tc.name, err, tc.want)
		}
	}
}

func TestHash(t *testing.T) {
	// The encoding written out by hand: golden files are keyed by it.
	sum := sha256.Sum256([]byte("2:v1;0:;3:a:b;"))
	if got, want := Hash("v1", "", "a:b"), hex.EncodeToString(sum[:]); got != want {
		t.Errorf("Hash = %s, want %s", got, want)
	}
	if Hash("ab", "c") == Hash("a", "bc") {
		t.Error("fields that concatenate alike hash alike: the length prefix is missing")
	}
}

func TestByName(t *testing.T) {
	type cfg struct{ Name string }
	cs := []cfg{{"b"}, {"a"}}
	nameOf := func(c cfg) string { return c.Name }
	got, err := ByName("sys", cs, nameOf, "a")
	if err != nil || got != (cfg{"a"}) {
		t.Errorf("ByName(a) = %v, %v, want {a}", got, err)
	}
	_, err = ByName("sys", cs, nameOf, "z")
	if want := `sys: unknown config "z" (known: b, a)`; err == nil || err.Error() != want {
		t.Errorf("ByName(z) err = %v, want %q (known names in config order)", err, want)
	}
}
