package models

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"time"
)

// KindEndpoint is a model served by an OpenAI-compatible embeddings server
// (package embed's Endpoint): no files, only its Endpoint. User manifests
// only.
const KindEndpoint = "endpoint"

// Endpoint says where and how an endpoint model is served.
type Endpoint struct {
	// BaseURL is the API root: POST BaseURL/embeddings ("http://gpu:8000/v1").
	BaseURL string `json:"base_url"`
	// Model is the name the server knows the model by.
	Model string `json:"model"`
	// Revision is what the server runs, declared by the user (a commit, a
	// tag, a file's sha256): with Model it keys stored vectors and golden
	// files, so a server that changes its model must change it.
	Revision string `json:"revision"`
	// KeyEnv names the environment variable holding the API key (never the
	// key itself); empty: no key is sent.
	KeyEnv string `json:"key_env,omitempty"`
	// RequestDimensions, when set, is sent as "dimensions" (servers that
	// truncate Matryoshka vectors themselves).
	RequestDimensions int `json:"request_dimensions,omitempty"`

	BatchSize   int      `json:"batch_size,omitempty"`  // texts per request (0: 32)
	Concurrency int      `json:"concurrency,omitempty"` // requests in flight (0: 4)
	Timeout     Duration `json:"timeout,omitempty"`     // per request ("30s"; 0: 2m)
	Retries     int      `json:"retries,omitempty"`     // further attempts on 429, 5xx or a failed request (0: 5)
	Backoff     Duration `json:"backoff,omitempty"`     // first wait, doubled each retry ("500ms")
	// Deadline bounds one batch over all its attempts and waits ("5m"; 0:
	// 5m): a server that hangs fails the batch then, not after
	// (1+retries) × timeout.
	Deadline Duration `json:"deadline,omitempty"`
}

// Duration is a time.Duration written as a string ("30s") in JSON.
type Duration time.Duration

// Duration returns d as a time.Duration.
func (d Duration) Duration() time.Duration { return time.Duration(d) }

// MarshalJSON writes d as "1m30s".
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// UnmarshalJSON reads a duration string ("30s", "500ms").
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("duration: want a string like \"30s\": %w", err)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	*d = Duration(v)
	return nil
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func (e *Endpoint) check() error {
	if e == nil {
		return fmt.Errorf("kind %q needs an \"endpoint\"", KindEndpoint)
	}
	u, err := url.Parse(e.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("endpoint base_url %q must be an http or https URL", e.BaseURL)
	}
	if u.User != nil {
		return fmt.Errorf("endpoint base_url: no credentials in the URL; name the key's environment variable in key_env")
	}
	if e.Model == "" || e.Revision == "" {
		return fmt.Errorf("endpoint model and revision are required (the revision keys stored vectors: what the server runs)")
	}
	if e.KeyEnv != "" && !envName.MatchString(e.KeyEnv) {
		return fmt.Errorf("endpoint key_env must name an environment variable, not hold a key")
	}
	if e.BatchSize < 0 || e.Concurrency < 0 || e.Retries < 0 || e.Timeout < 0 || e.Backoff < 0 || e.RequestDimensions < 0 || e.Deadline < 0 {
		return fmt.Errorf("endpoint batch_size, concurrency, retries, timeout, backoff, deadline and request_dimensions must not be negative")
	}
	return nil
}
