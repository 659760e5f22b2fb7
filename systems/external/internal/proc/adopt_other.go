//go:build !linux

package proc

// becomeSubreaper does nothing where there is no child subreaper: a
// server's setsid'd worker is not found (see killAdopted).
func becomeSubreaper() error { return nil }

// killAdopted does nothing without /proc and a subreaper.
func killAdopted(func(pid int) bool) {}

// watchParent does nothing without /proc.
func watchParent(bool) {}
