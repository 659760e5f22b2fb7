// Package mlflow is a small client of the MLflow tracking server's REST
// API (2.0 endpoints, as served by MLflow 2.x and 3.x): experiments, runs,
// batched params/metrics/tags, and artifact upload through the tracking
// server's artifact proxy (mlflow-artifacts, the default of `mlflow
// server` since 2.0). It uses the standard library only.
//
// The tracking URI may carry user:password (sent as basic auth); Redact
// strips it from anything shown.
package mlflow

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"
)

// EnvTrackingURI is the environment variable MLflow's own clients read.
const EnvTrackingURI = "MLFLOW_TRACKING_URI"

// Config holds what a Client needs.
type Config struct {
	TrackingURI string       // http(s)://host:port[/prefix]
	HTTPClient  *http.Client // nil: a client with Timeout
	Timeout     time.Duration
}

// Client talks to one tracking server.
type Client struct {
	base *url.URL
	http *http.Client
}

// New returns a client of cfg.TrackingURI.
func New(cfg Config) (*Client, error) {
	u, err := url.Parse(cfg.TrackingURI)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("mlflow: tracking URI %q is not an http(s) server address", Redact(cfg.TrackingURI))
	}
	hc := cfg.HTTPClient
	if hc == nil {
		t := cfg.Timeout
		if t == 0 {
			t = 60 * time.Second
		}
		hc = &http.Client{Timeout: t}
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	return &Client{base: u, http: hc}, nil
}

// Redact returns uri without its user information.
func Redact(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.User == nil {
		return uri
	}
	u.User = nil
	return u.String()
}

// APIError is an error answer of the server.
type APIError struct {
	Endpoint string
	Status   int
	Code     string `json:"error_code"`
	Message  string `json:"message"`
}

func (e *APIError) Error() string {
	return fmt.Sprintf("mlflow %s: HTTP %d %s: %s", e.Endpoint, e.Status, e.Code, e.Message)
}

// ErrNotFound is matched (errors.Is) by an APIError with
// RESOURCE_DOES_NOT_EXIST.
var ErrNotFound = errors.New("mlflow: resource does not exist")

func (e *APIError) Is(target error) bool {
	return target == ErrNotFound && (e.Code == "RESOURCE_DOES_NOT_EXIST" || e.Status == http.StatusNotFound)
}

func (c *Client) url(path string, q url.Values) string {
	u := *c.base
	u.Path += path
	u.RawQuery = q.Encode()
	u.User = nil
	return u.String()
}

// do sends a request and decodes a JSON answer into out (nil: ignored).
func (c *Client) do(ctx context.Context, method, endpoint string, q url.Values, body io.Reader, ctype string, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, c.url(endpoint, q), body)
	if err != nil {
		return err
	}
	if c.base.User != nil {
		pw, _ := c.base.User.Password()
		req.SetBasicAuth(c.base.User.Username(), pw)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL is in the message below, redacted
		}
		return fmt.Errorf("mlflow %s %s: %w", method, endpoint, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return fmt.Errorf("mlflow %s: %w", endpoint, err)
	}
	if resp.StatusCode/100 != 2 {
		e := &APIError{Endpoint: endpoint, Status: resp.StatusCode}
		if json.Unmarshal(data, e) != nil || e.Message == "" {
			e.Message = strings.TrimSpace(string(data[:min(len(data), 300)]))
		}
		return e
	}
	if out == nil || len(data) == 0 {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("mlflow %s: decoding answer: %w", endpoint, err)
	}
	return nil
}

func (c *Client) post(ctx context.Context, endpoint string, in, out any) error {
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	return c.do(ctx, http.MethodPost, endpoint, nil, bytes.NewReader(b), "application/json", out)
}

// Tag, Param and Metric are the key/value items of a run.
type Tag struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

type Param = Tag

type Metric struct {
	Key       string  `json:"key"`
	Value     float64 `json:"value"`
	Timestamp int64   `json:"timestamp"` // ms since the epoch
	Step      int64   `json:"step"`
}

// ExperimentID returns the id of the experiment called name, creating it
// when it does not exist.
func (c *Client) ExperimentID(ctx context.Context, name string) (string, error) {
	var got struct {
		Experiment struct {
			ID string `json:"experiment_id"`
		} `json:"experiment"`
	}
	err := c.do(ctx, http.MethodGet, "/api/2.0/mlflow/experiments/get-by-name", url.Values{"experiment_name": {name}}, nil, "", &got)
	if err == nil {
		return got.Experiment.ID, nil
	}
	if !errors.Is(err, ErrNotFound) {
		return "", err
	}
	var created struct {
		ID string `json:"experiment_id"`
	}
	if err := c.post(ctx, "/api/2.0/mlflow/experiments/create", map[string]string{"name": name}, &created); err != nil {
		return "", err
	}
	return created.ID, nil
}

// RunInfo is what the server says about a run.
type RunInfo struct {
	RunID       string `json:"run_id"`
	Experiment  string `json:"experiment_id"`
	RunName     string `json:"run_name"`
	Status      string `json:"status"`
	ArtifactURI string `json:"artifact_uri"`
}

// CreateRun starts a run in experiment.
func (c *Client) CreateRun(ctx context.Context, experiment, name string, start time.Time, tags []Tag) (RunInfo, error) {
	in := map[string]any{"experiment_id": experiment, "run_name": name, "start_time": start.UnixMilli(), "tags": append([]Tag{}, tags...)}
	var out struct {
		Run struct {
			Info RunInfo `json:"info"`
		} `json:"run"`
	}
	if err := c.post(ctx, "/api/2.0/mlflow/runs/create", in, &out); err != nil {
		return RunInfo{}, err
	}
	return out.Run.Info, nil
}

// Batch limits of runs/log-batch.
const (
	maxBatchMetrics = 1000
	maxBatchParams  = 100
	maxBatchTags    = 100
)

// LogBatch logs params, metrics and tags to a run, in as many requests as
// the server's batch limits need.
func (c *Client) LogBatch(ctx context.Context, runID string, params []Param, metrics []Metric, tags []Tag) error {
	for len(params) > 0 || len(metrics) > 0 || len(tags) > 0 {
		np, nm, nt := min(len(params), maxBatchParams), min(len(metrics), maxBatchMetrics), min(len(tags), maxBatchTags)
		// The server refuses null lists (HTTP 500), so empty ones are [].
		in := map[string]any{"run_id": runID, "params": append([]Param{}, params[:np]...),
			"metrics": append([]Metric{}, metrics[:nm]...), "tags": append([]Tag{}, tags[:nt]...)}
		if err := c.post(ctx, "/api/2.0/mlflow/runs/log-batch", in, nil); err != nil {
			return err
		}
		params, metrics, tags = params[np:], metrics[nm:], tags[nt:]
	}
	return nil
}

// EndRun sets the run's final status ("FINISHED", "FAILED", "KILLED").
func (c *Client) EndRun(ctx context.Context, runID, status string, end time.Time) error {
	return c.post(ctx, "/api/2.0/mlflow/runs/update", map[string]any{"run_id": runID, "status": status, "end_time": end.UnixMilli()}, nil)
}

// TrackingRun is an MLflow tracking run as runs/get returns it.
type TrackingRun struct {
	Info RunInfo `json:"info"`
	Data struct {
		Params  []Param  `json:"params"`
		Metrics []Metric `json:"metrics"`
		Tags    []Tag    `json:"tags"`
	} `json:"data"`
}

// GetRun returns the run with its latest params, metrics and tags.
func (c *Client) GetRun(ctx context.Context, runID string) (TrackingRun, error) {
	var out struct {
		Run TrackingRun `json:"run"`
	}
	err := c.do(ctx, http.MethodGet, "/api/2.0/mlflow/runs/get", url.Values{"run_id": {runID}}, nil, "", &out)
	return out.Run, err
}

// SearchRuns returns the runs of an experiment (up to 1000), newest first.
func (c *Client) SearchRuns(ctx context.Context, experiment string) ([]TrackingRun, error) {
	var out struct {
		Runs []TrackingRun `json:"runs"`
	}
	err := c.post(ctx, "/api/2.0/mlflow/runs/search", map[string]any{"experiment_ids": []string{experiment}, "max_results": 1000}, &out)
	return out.Runs, err
}

// proxiedPath is the path of an mlflow-artifacts URI under the server's
// artifact proxy.
func proxiedPath(artifactURI string) (string, error) {
	u, err := url.Parse(artifactURI)
	if err != nil || u.Scheme != "mlflow-artifacts" {
		return "", fmt.Errorf("mlflow: run artifact URI %q is not proxied by the tracking server (mlflow-artifacts:); start the server with --serve-artifacts (the default) and a --default-artifact-root it proxies", artifactURI)
	}
	return strings.Trim(u.Path, "/"), nil
}

var artifactName = regexp.MustCompile(`^[A-Za-z0-9._-]+(/[A-Za-z0-9._-]+)*$`)

// UploadArtifact stores data as the artifact at path (slash-separated,
// relative) of a run, through the tracking server's artifact proxy
// (PUT /api/2.0/mlflow-artifacts/artifacts/...).
func (c *Client) UploadArtifact(ctx context.Context, run RunInfo, path string, data []byte) error {
	if !artifactName.MatchString(path) || strings.Contains(path, "..") {
		return fmt.Errorf("mlflow: artifact path %q: use letters, digits, '.', '_', '-' and '/'", path)
	}
	root, err := proxiedPath(run.ArtifactURI)
	if err != nil {
		return err
	}
	return c.do(ctx, http.MethodPut, "/api/2.0/mlflow-artifacts/artifacts/"+root+"/"+path, nil, bytes.NewReader(data), "application/octet-stream", nil)
}

// DownloadArtifact reads back an artifact of a run.
func (c *Client) DownloadArtifact(ctx context.Context, run RunInfo, path string) ([]byte, error) {
	root, err := proxiedPath(run.ArtifactURI)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.url("/api/2.0/mlflow-artifacts/artifacts/"+root+"/"+path, nil), nil)
	if err != nil {
		return nil, err
	}
	if c.base.User != nil {
		pw, _ := c.base.User.Password()
		req.SetBasicAuth(c.base.User.Username(), pw)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("mlflow artifact %s: %w", path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, &APIError{Endpoint: "mlflow-artifacts " + path, Status: resp.StatusCode, Message: strings.TrimSpace(string(data[:min(len(data), 300)]))}
	}
	return data, nil
}

var keyBad = regexp.MustCompile(`[^A-Za-z0-9_\-. /]`)

// Key turns a measure name into an MLflow metric or param key, which
// allows letters, digits, '_', '-', '.', ' ' and '/': "ndcg@10" →
// "ndcg_at_10".
func Key(name string) string {
	return keyBad.ReplaceAllString(strings.ReplaceAll(name, "@", "_at_"), "_")
}
