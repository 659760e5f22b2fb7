package external

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/retrievalbench/retrievalbench/internal/atomicfile"
	"github.com/retrievalbench/retrievalbench/systems"
	"github.com/retrievalbench/retrievalbench/systems/external/internal/mapping"
	"github.com/retrievalbench/retrievalbench/systems/external/internal/proc"
	"github.com/retrievalbench/retrievalbench/systems/external/internal/template"
)

// The index step of Index: the config's files, the index command and the
// marker that lets a later run reuse what it built.

// indexedMarker is written into the work directory once the index command
// has succeeded; it holds an indexMarker.
const indexedMarker = ".retrievalbench-indexed"

// indexMarker is what an index in a work directory was built with and how
// long building it took. An index is reused only when both the config hash
// and the tool key match: a new version of the tool (or of the files it
// runs) builds a new index rather than reading a stale one.
type indexMarker struct {
	ConfigHash   string  `json:"config_hash"`
	Tool         string  `json:"tool"`
	BuildSeconds float64 `json:"build_seconds"`
}

func writeFiles(rt *runtime, files map[string]string) error {
	for _, k := range slices.Sorted(maps.Keys(files)) {
		name, err := rt.base.Expand(k)
		if err != nil {
			return fmt.Errorf("%s: files %q: %w", rt.name, k, err)
		}
		if !filepath.IsAbs(name) {
			name = filepath.Join(rt.work, name)
		}
		if _, ok := mapping.RelPath([]string{rt.work}, name); !ok {
			return fmt.Errorf("%s: files %q: %s is outside the work directory %s", rt.name, k, name, rt.work)
		}
		text, err := rt.base.Expand(files[k])
		if err != nil {
			return rt.red.Error(fmt.Errorf("%s: files %q: %w", rt.name, k, err))
		}
		if err := atomicfile.WriteFile(name, []byte(text)); err != nil {
			return fmt.Errorf("%s: files %q: %w", rt.name, k, err)
		}
	}
	return nil
}

// runIndex runs the index command unless the work directory holds an
// index built with want's config hash and tool key (Index has emptied one
// built with others), and reports which it did.
func runIndex(ctx context.Context, rt *runtime, want indexMarker) (systems.IndexReport, error) {
	ix := rt.cfg.Index
	if ix == nil {
		return systems.IndexReport{}, nil
	}
	if m, ok := readMarker(rt.work); ok && want.Tool != "" && m.ConfigHash == want.ConfigHash && m.Tool == want.Tool {
		built := time.Duration(m.BuildSeconds * float64(time.Second))
		rt.logf("%s: index reused from %s (built in %s)", rt.name, rt.work, built.Round(time.Millisecond))
		return systems.IndexReport{Reused: true, BuildTime: built}, nil
	}
	argv, err := rt.base.ExpandAll(ix.Command)
	if err != nil {
		return systems.IndexReport{}, rt.red.Error(fmt.Errorf("%s: index.command: %w", rt.name, err))
	}
	ctx, cancel := context.WithTimeout(ctx, rt.cfg.IndexWait())
	defer cancel()
	start := time.Now()
	stop := heartbeat(heartbeatEvery, rt.cfg.IndexWait(), rt.logf, rt.name+": indexing")
	_, _, err = proc.Run(ctx, argv, rt.env, rt.work, -1, rt.red, rt.peak)
	stop()
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return systems.IndexReport{}, fmt.Errorf("%s: index: timed out after %s (index.timeout): %w", rt.name, rt.cfg.IndexWait(), err)
		}
		return systems.IndexReport{}, fmt.Errorf("%s: index: %w", rt.name, err)
	}
	built := time.Since(start)
	rt.logf("%s: indexed in %s", rt.name, built.Round(time.Millisecond))
	want.BuildSeconds = built.Seconds()
	if err := atomicfile.WriteJSON(filepath.Join(rt.work, indexedMarker), want); err != nil {
		return systems.IndexReport{}, err
	}
	return systems.IndexReport{BuildTime: built}, nil
}

// serverCommand is the argv of the process a config starts to answer
// queries: its MCP or HTTP server, or its per-query search command.
func serverCommand(cfg *Config) []string {
	switch {
	case cfg.MCP != nil:
		return cfg.MCP.Command
	case cfg.HTTP != nil:
		return cfg.HTTP.Command
	case cfg.Command != nil:
		return cfg.Command.Search
	}
	return nil
}

// readMarker reads the index marker of work; false when there is none or
// it is not one this version wrote (an older marker held the config hash
// alone: its index is rebuilt once).
func readMarker(work string) (indexMarker, bool) {
	var m indexMarker
	b, err := os.ReadFile(filepath.Join(work, indexedMarker))
	if err != nil || json.Unmarshal(b, &m) != nil {
		return indexMarker{}, err == nil
	}
	return m, true
}

// toolKey names the version of the tool a config runs, for the index
// cache: the output of its version_command when it has one, else the
// SHA-256 of every file the config names — the files its requires list and
// the programs its index, server and search commands start — so that an
// upgraded tool does not read the index an older one built. "" with an
// error when the version cannot be known.
func toolKey(ctx context.Context, cfg *Config, v template.Vars) (string, error) {
	if len(cfg.VersionCommand) > 0 {
		vs, err := cfg.Versions(ctx)
		if err != nil {
			return "", err
		}
		return "version_command: " + vs[cfg.System], nil
	}
	var names []string
	for _, r := range cfg.Requires {
		if r.Path != "" {
			names = append(names, r.Path)
		}
	}
	for _, argv := range [][]string{cfg.Index.Command, serverCommand(cfg)} {
		if len(argv) > 0 {
			names = append(names, argv[0])
		}
	}
	var parts []string
	for _, n := range names {
		p, err := v.Expand(n)
		if err != nil {
			return "", fmt.Errorf("naming the tool's files: %w", err)
		}
		if !strings.Contains(p, "/") {
			if p, err = exec.LookPath(p); err != nil {
				continue // a requirement reports a missing program
			}
		}
		f, err := os.Open(p)
		if err != nil {
			continue // a requirement reports a missing file
		}
		h := sha256.New()
		st, err := f.Stat()
		if err == nil && st.Mode().IsRegular() {
			_, err = io.Copy(h, f)
		}
		f.Close()
		if err != nil {
			return "", fmt.Errorf("hashing %s: %w", p, err)
		}
		if st.Mode().IsRegular() {
			parts = append(parts, fmt.Sprintf("%s sha256:%x", n, h.Sum(nil)[:8]))
		}
	}
	slices.Sort(parts)
	return "files: " + strings.Join(slices.Compact(parts), ", "), nil
}
