package embed

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/retrievalbench/retrievalbench/embed/models"
)

// Defaults of EndpointConfig's zero fields.
const (
	DefaultEndpointBatch       = 32
	DefaultEndpointConcurrency = 4
	DefaultEndpointTimeout     = 2 * time.Minute
	DefaultEndpointRetries     = 5
	DefaultEndpointBackoff     = 500 * time.Millisecond
	// DefaultEndpointDeadline bounds one batch over all its attempts and
	// waits: a hanging server fails it after 5 min (two 2-min attempts and
	// part of a third), not after (1+5) × 2 min.
	DefaultEndpointDeadline = 5 * time.Minute
)

// Endpoint embeds texts with an OpenAI-compatible embeddings server (POST
// <base URL>/embeddings: vLLM, Text Embeddings Inference, Infinity, Ollama,
// llama.cpp's server, LM Studio, hosted APIs). Texts go in batches, a
// bounded number of requests at a time; a 429 or 5xx answer, or a request
// that fails or times out, is retried with exponential backoff (honouring
// Retry-After). The API key is read from the environment variable the
// model names, sent as a bearer token, and never written anywhere: not in
// the fingerprint, the errors or any file. Vectors are checked against the
// declared dimension and normalised like the in-process ones.
type Endpoint struct {
	m      models.Model
	ep     models.Endpoint
	key    string
	client *http.Client
	fp     string

	// Logf, when set, gets a line for every retry (the -v log).
	Logf func(format string, args ...any)

	mu       sync.Mutex
	stats    EndpointCounts
	reported EndpointCounts // what Warnings last reported
}

// EndpointCounts counts what an Endpoint did.
type EndpointCounts struct {
	Texts, Requests, Retries int
	// Failed counts the batches that failed after their retries or at the
	// deadline.
	Failed int
	Wait   time.Duration // wall time inside Embed calls
}

// NewEndpoint returns the embedder of m, a model of kind endpoint. client
// may be nil (http.DefaultClient's transport, each request bounded by the
// model's timeout).
func NewEndpoint(m models.Model, client *http.Client) (*Endpoint, error) {
	if m.Endpoint == nil {
		return nil, fmt.Errorf("embed: model %s is not an endpoint model", m.ID)
	}
	ep := *m.Endpoint
	if ep.BatchSize == 0 {
		ep.BatchSize = DefaultEndpointBatch
	}
	if ep.Concurrency == 0 {
		ep.Concurrency = DefaultEndpointConcurrency
	}
	if ep.Retries == 0 {
		ep.Retries = DefaultEndpointRetries
	}
	if client == nil {
		client = &http.Client{}
	}
	e := &Endpoint{m: m, ep: ep, client: client, fp: EndpointFingerprint(m)}
	if ep.KeyEnv != "" {
		e.key = os.Getenv(ep.KeyEnv)
		if e.key == "" {
			return nil, fmt.Errorf("embed: model %s: $%s is empty; it must hold the API key", m.ID, ep.KeyEnv)
		}
	}
	return e, nil
}

// EndpointFingerprint keys the stored vectors of endpoint model m: the
// served model's name, its declared revision, dimension, prompts and
// normalisation. The base URL is not part of it (the same model and
// revision on another server embeds alike), nor is the key.
func EndpointFingerprint(m models.Model) string {
	h := sha256.New()
	ep := m.Endpoint
	fmt.Fprintf(h, "endpoint\x00model=%s\x00revision=%s\x00dim=%d\x00query=%s\x00passage=%s", ep.Model, ep.Revision, m.Dimension, m.QueryPrefix, m.PassagePrefix)
	for _, kv := range m.Settings() {
		fmt.Fprintf(h, "\x00%s", kv)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Model returns the model the Endpoint serves.
func (e *Endpoint) Model() models.Model { return e.m }

// Dim returns the vector dimension.
func (e *Endpoint) Dim() int { return e.m.Dimension }

// Fingerprint returns EndpointFingerprint of the model.
func (e *Endpoint) Fingerprint() string { return e.fp }

// Stats returns the counters accumulated since NewEndpoint.
func (e *Endpoint) Stats() EndpointCounts {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.stats
}

// Warnings returns one line counting the retries made and the batches
// failed since the last call, if any (systems.Warner's form: a dense
// system over an endpoint reports it with its index and each task).
func (e *Endpoint) Warnings() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	r, f := e.stats.Retries-e.reported.Retries, e.stats.Failed-e.reported.Failed
	e.reported = e.stats
	if r == 0 && f == 0 {
		return nil
	}
	return []string{fmt.Sprintf("embed: model %s: %d requests retried (on HTTP 429/5xx or a failed or timed-out request); %d batches failed after their retries", e.m.ID, r, f)}
}

func (e *Endpoint) logf(format string, args ...any) {
	if e.Logf != nil {
		e.Logf(format, args...)
	}
}

// Close releases nothing: requests end with their calls.
func (e *Endpoint) Close() error { return nil }

// EmbedQueries embeds search queries, each with the model's query prefix.
func (e *Endpoint) EmbedQueries(ctx context.Context, texts []string) ([][]float32, error) {
	return e.Embed(ctx, texts, e.m.QueryPrefix)
}

// EmbedPassages embeds documents, each with the model's passage prefix.
func (e *Endpoint) EmbedPassages(ctx context.Context, texts []string) ([][]float32, error) {
	return e.Embed(ctx, texts, e.m.PassagePrefix)
}

// Embed returns one vector per text, in order, each of prefix+text.
func (e *Endpoint) Embed(ctx context.Context, texts []string, prefix string) ([][]float32, error) {
	start := time.Now()
	defer func() {
		e.mu.Lock()
		e.stats.Wait += time.Since(start)
		e.mu.Unlock()
	}()
	out := make([][]float32, len(texts))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sem := make(chan struct{}, e.ep.Concurrency)
	var wg sync.WaitGroup
	var once sync.Once
	var firstErr error
	for lo := 0; lo < len(texts); lo += e.ep.BatchSize {
		hi := min(lo+e.ep.BatchSize, len(texts))
		batch := make([]string, hi-lo)
		for i, t := range texts[lo:hi] {
			batch[i] = prefix + t
		}
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			vecs, err := e.request(ctx, batch)
			if err != nil {
				once.Do(func() { firstErr = err; cancel() })
				return
			}
			copy(out[lo:hi], vecs)
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	e.mu.Lock()
	e.stats.Texts += len(texts)
	e.mu.Unlock()
	return out, nil
}

type embeddingsRequest struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	EncodingFormat string   `json:"encoding_format"`
	Dimensions     int      `json:"dimensions,omitempty"`
}

type embeddingsResponse struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
}

// errRetry marks a failed attempt worth another.
type errRetry struct {
	err   error
	after time.Duration // the server's Retry-After, if any
}

func (e errRetry) Error() string { return e.err.Error() }

// request embeds one batch, retrying what can be retried, within the
// endpoint's deadline over all attempts.
func (e *Endpoint) request(ctx context.Context, batch []string) ([][]float32, error) {
	body, err := json.Marshal(embeddingsRequest{Model: e.ep.Model, Input: batch, EncodingFormat: "float", Dimensions: e.ep.RequestDimensions})
	if err != nil {
		return nil, err
	}
	backoff := e.ep.Backoff.Duration()
	if backoff == 0 {
		backoff = DefaultEndpointBackoff
	}
	deadline := e.ep.Deadline.Duration()
	if deadline == 0 {
		deadline = DefaultEndpointDeadline
	}
	timeout := e.ep.Timeout.Duration()
	if timeout == 0 {
		timeout = DefaultEndpointTimeout
	}
	dctx, cancel := context.WithTimeout(ctx, deadline)
	defer cancel()
	failed := func() {
		e.mu.Lock()
		e.stats.Failed++
		e.mu.Unlock()
	}
	var last error // the last retryable failure
	for attempt := 0; ; attempt++ {
		vecs, err := e.attempt(dctx, body, len(batch))
		if err == nil {
			return vecs, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err() // the caller's: not the endpoint's failure
		}
		if dctx.Err() != nil {
			failed()
			if last == nil {
				last = err
			}
			return nil, fmt.Errorf("embed: model %s: no embeddings within %v (deadline; timeout %v per request, up to %d retries) after %d attempts: %w",
				e.m.ID, deadline, timeout, e.ep.Retries, attempt+1, last)
		}
		var re errRetry
		if !errors.As(err, &re) {
			return nil, err
		}
		last = err
		if attempt >= e.ep.Retries {
			failed()
			return nil, fmt.Errorf("%w (gave up after %d attempts)", err, attempt+1)
		}
		wait := max(backoff<<attempt, re.after)
		e.mu.Lock()
		e.stats.Retries++
		e.mu.Unlock()
		e.logf("%v; retry %d of %d in %v", err, attempt+1, e.ep.Retries, wait.Round(time.Millisecond))
		select {
		case <-time.After(wait):
		case <-dctx.Done(): // the next attempt reports the deadline
		}
	}
}

// attempt is one POST of body.
func (e *Endpoint) attempt(ctx context.Context, body []byte, n int) ([][]float32, error) {
	timeout := e.ep.Timeout.Duration()
	if timeout == 0 {
		timeout = DefaultEndpointTimeout
	}
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	url := strings.TrimRight(e.ep.BaseURL, "/") + "/embeddings"
	req, err := http.NewRequestWithContext(rctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("embed: model %s: %w", e.m.ID, err)
	}
	req.Header.Set("Content-Type", "application/json")
	if e.key != "" {
		req.Header.Set("Authorization", "Bearer "+e.key)
	}
	e.mu.Lock()
	e.stats.Requests++
	e.mu.Unlock()
	resp, err := e.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, errRetry{err: fmt.Errorf("embed: model %s: POST %s: %s", e.m.ID, url, e.redact(err.Error()))}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<30))
	if err != nil {
		return nil, errRetry{err: fmt.Errorf("embed: model %s: reading the answer of %s: %s", e.m.ID, url, e.redact(err.Error()))}
	}
	if resp.StatusCode != http.StatusOK {
		err := fmt.Errorf("embed: model %s: POST %s: %s: %s", e.m.ID, url, resp.Status, e.redact(tail(string(data), 300)))
		if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 {
			var after time.Duration
			if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
				after = time.Duration(s) * time.Second
			}
			return nil, errRetry{err: err, after: after}
		}
		return nil, err
	}
	var r embeddingsResponse
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("embed: model %s: %s answered no embeddings JSON: %v", e.m.ID, url, err)
	}
	if len(r.Data) != n {
		return nil, fmt.Errorf("embed: model %s: %s answered %d embeddings for %d texts", e.m.ID, url, len(r.Data), n)
	}
	out := make([][]float32, n)
	for _, d := range r.Data {
		if d.Index < 0 || d.Index >= n || out[d.Index] != nil {
			return nil, fmt.Errorf("embed: model %s: %s answered index %d twice or out of range", e.m.ID, url, d.Index)
		}
		if len(d.Embedding) < e.m.Dimension || (len(d.Embedding) != e.m.Dimension && e.m.HiddenSize == 0) {
			return nil, fmt.Errorf("embed: model %s: %s answered a vector of %d, the model declares dimension %d", e.m.ID, url, len(d.Embedding), e.m.Dimension)
		}
		v := d.Embedding[:e.m.Dimension:e.m.Dimension]
		if e.m.Normalized() {
			normalize(v)
		}
		out[d.Index] = v
	}
	return out, nil
}

// redact removes the API key from s (a server may echo the header).
func (e *Endpoint) redact(s string) string {
	if e.key == "" {
		return s
	}
	return strings.ReplaceAll(s, e.key, "[redacted]")
}

func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
