//go:build race

package benchtest

const raceEnabled = true
