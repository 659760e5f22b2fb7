package embed

import (
	"errors"
	"fmt"
	"os"
	"sync"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/retrievalbench/retrievalbench/embed/models"
)

// EnvORTLib names the environment variable that points at the ONNX Runtime
// shared library (libonnxruntime.so.1); it overrides the copy in the cache.
const EnvORTLib = "RETRIEVALBENCH_ORT_LIB"

// envORTDisableTelemetry is the variable ONNX Runtime reads at environment
// creation to leave its telemetry off.
const envORTDisableTelemetry = "ORT_DISABLE_TELEMETRY"

// ErrNoRuntime is wrapped by LibraryPath when the ONNX Runtime library
// cannot be found; tests turn it into a skip (or a failure when required).
var ErrNoRuntime = errors.New("ONNX Runtime library not found")

// LibraryPath returns the ONNX Runtime shared library to load:
// $RETRIEVALBENCH_ORT_LIB when set, else the copy `make setup` puts in
// cacheDir. The file must exist.
func LibraryPath(cacheDir string) (string, error) {
	p, from := os.Getenv(EnvORTLib), "$"+EnvORTLib
	if p == "" {
		p, from = models.ORTPath(cacheDir), "the cache"
	}
	st, err := os.Stat(p)
	if err != nil || st.IsDir() {
		return "", fmt.Errorf("%w at %s (from %s): set %s to a libonnxruntime.so.1 (ORT >= 1.24.1) or run `make setup`",
			ErrNoRuntime, p, from, EnvORTLib)
	}
	return p, nil
}

// The ONNX Runtime environment is process-global in onnxruntime_go: it is
// created once and never destroyed, because sessions of other Embedders may
// still be running on it. The first library loaded serves the whole process
// (a second copy cannot be loaded beside it); later calls share it whatever
// path they name. A failed attempt (say, a missing library) is not
// remembered, so a later call with a good path can still succeed.
var (
	envMu   sync.Mutex
	envPath string // library the environment was created from; "" before
)

// initRuntime creates the global ONNX Runtime environment from lib unless
// it exists already.
func initRuntime(lib string) error {
	envMu.Lock()
	defer envMu.Unlock()
	if envPath != "" || ort.IsInitialized() {
		if envPath == "" {
			envPath = lib // initialised by someone else in the process
		}
		return nil
	}
	ort.SetSharedLibraryPath(lib)
	// ONNX Runtime's telemetry (POSIX builds since 1.2x) keeps a device id
	// and a queue of usage events under ~/.cache/Microsoft and may try to
	// upload them. A benchmark that runs offline must do neither. The
	// environment variable is read when the environment is created, before
	// onnxruntime_go's DisableTelemetry can be called (it needs the
	// environment); DisableTelemetry then also stops events of this
	// environment.
	if err := os.Setenv(envORTDisableTelemetry, "1"); err != nil {
		return fmt.Errorf("disabling ONNX Runtime telemetry: %w", err)
	}
	if err := ort.InitializeEnvironment(ort.WithLogLevelError()); err != nil {
		return fmt.Errorf("loading ONNX Runtime from %s (set %s or run `make setup`): %w", lib, EnvORTLib, err)
	}
	if err := ort.DisableTelemetry(); err != nil {
		return fmt.Errorf("disabling ONNX Runtime telemetry: %w", err)
	}
	envPath = lib
	return nil
}

// RuntimeLibrary returns the path the process's ONNX Runtime was loaded
// from, or "" before any Embedder was created.
func RuntimeLibrary() string {
	envMu.Lock()
	defer envMu.Unlock()
	return envPath
}

// RuntimeVersion returns the version of the loaded ONNX Runtime library, or
// "" before any Embedder was created.
func RuntimeVersion() string {
	envMu.Lock()
	defer envMu.Unlock()
	if envPath == "" {
		return ""
	}
	return ort.GetVersion()
}
