// Package proc supervises the child processes of an external system: each
// runs in its own process group, killed as a whole when its context ends,
// after a command exits and on Stop, and when the program running the
// benchmark dies however it dies (reaper.go); its stderr is kept as a
// redacted tail for error messages (Tail, Redactor) and its peak resident
// set size is measured (PeakRSS). Run runs a command to completion,
// StartServer starts a long-running server.
package proc
