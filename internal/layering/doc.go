// Package layering has no code: its test holds the layering that
// docs/ARCHITECTURE.md draws — the file formats and the other leaves
// import only leaves, and the packages a user's module links for
// judging, reports and leaderboards pull in no tree-sitter grammar and
// no cgo outside the standard library — by asking go list, so that a
// new import that breaks it fails here rather than in a reviewer's
// reading.
package layering
