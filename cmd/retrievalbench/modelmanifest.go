package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/retrievalbench/retrievalbench/embed/models"
)

// modelManifestFlag registers -model-manifest, the user model manifests of
// every command that takes models (embed, campaign, models, promote).
func modelManifestFlag(fs *flag.FlagSet) *string {
	return fs.String("model-manifest", "", "user model manifest `files` (separated by '"+string(filepath.ListSeparator)+
		"') merged with the built-in models (default $"+models.EnvManifest+"; see docs/models.md)")
}

// useModelManifest makes list (when set) the process's
// $RETRIEVALBENCH_MODEL_MANIFEST, with absolute paths, so that every model
// lookup of this run — and of the go test runs promote starts — sees the
// same models; it returns the merged catalog, or the manifest's file:line
// error.
func useModelManifest(list string) (*models.Catalog, error) {
	if list != "" {
		var abs []string
		for _, p := range filepath.SplitList(list) {
			if p == "" {
				continue
			}
			a, err := filepath.Abs(p)
			if err != nil {
				return nil, err
			}
			abs = append(abs, a)
		}
		if err := os.Setenv(models.EnvManifest, strings.Join(abs, string(filepath.ListSeparator))); err != nil {
			return nil, err
		}
	}
	c, err := models.Default()
	if err != nil {
		if list != "" {
			// Default names the variable; the user gave the flag.
			if inner := errors.Unwrap(err); inner != nil {
				err = inner
			}
			return nil, fmt.Errorf("model manifest: %w (from -model-manifest %s)", err, list)
		}
		return nil, fmt.Errorf("model manifest: %w", err)
	}
	return c, nil
}
