// Package buildrec is the build record a built-in system keeps next to a
// cached index: how long building it took and on which CPU class, so that
// a later run reusing the index reports the cold cost
// (systems.IndexReporter).
package buildrec

import (
	"encoding/json"
	"os"
	"time"

	"github.com/retrievalbench/retrievalbench/internal/atomicfile"
	"github.com/retrievalbench/retrievalbench/systems"
)

// buildRecord is the file a built-in system keeps next to a cached index:
// how long building it took and on which CPU class.
type buildRecord struct {
	Seconds  float64 `json:"build_seconds"`
	CPUClass string  `json:"cpu_class"`
}

// Write records r's build time and CPU class in file (written whole
// or not at all), so that a later run reusing the index can report the
// cold cost (Read, systems.IndexReporter).
func Write(file string, r systems.IndexReport) error {
	b, err := json.Marshal(buildRecord{Seconds: r.BuildTime.Seconds(), CPUClass: r.CPUClass})
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(file, append(b, '\n'))
}

// Read is the IndexReport of a reused index from the record Write
// left in file: Reused, with BuildTime 0 when none was recorded
// (an index or vectors stored before builds were, or by another corpus
// sharing them) or the record cannot be read.
func Read(file string) systems.IndexReport {
	r := systems.IndexReport{Reused: true}
	b, err := os.ReadFile(file)
	if err != nil {
		return r
	}
	var br buildRecord
	if json.Unmarshal(b, &br) == nil && br.Seconds > 0 {
		r.BuildTime, r.CPUClass = time.Duration(br.Seconds*float64(time.Second)), br.CPUClass
	}
	return r
}
