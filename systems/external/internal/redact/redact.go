// Package redact replaces the values of an external system's secrets by
// "***" in every string and error it is given.
package redact

import (
	"sort"
	"strings"
)

// Redactor replaces every secret value by "***"; a nil *Redactor replaces
// nothing.
type Redactor struct {
	secrets []string // longest first, so a secret containing another goes whole
	longest int
}

// New returns a Redactor of the non-empty values of secrets.
func New(secrets []string) *Redactor {
	r := &Redactor{}
	for _, s := range secrets {
		if s != "" {
			r.secrets = append(r.secrets, s)
			r.longest = max(r.longest, len(s))
		}
	}
	sort.Slice(r.secrets, func(i, j int) bool { return len(r.secrets[i]) > len(r.secrets[j]) })
	return r
}

// String returns s with every secret replaced.
func (r *Redactor) String(s string) string {
	if r == nil {
		return s
	}
	for _, x := range r.secrets {
		s = strings.ReplaceAll(s, x, "***")
	}
	return s
}

// Error returns err with its message redacted; errors.Is still sees
// through it.
func (r *Redactor) Error(err error) error {
	if err == nil || r == nil || len(r.secrets) == 0 {
		return err
	}
	msg := r.String(err.Error())
	if msg == err.Error() {
		return err
	}
	return redactedError{msg, err}
}

type redactedError struct {
	msg string
	err error
}

func (e redactedError) Error() string { return e.msg }
func (e redactedError) Unwrap() error { return e.err }

// Longest is the length of the longest secret (0: none), the overlap a
// stream must keep unredacted to find a secret split across two writes.
func (r *Redactor) Longest() int {
	if r == nil {
		return 0
	}
	return r.longest
}
