package external

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"

	"github.com/retrievalbench/retrievalbench/systems/external/internal/mapping"
	"github.com/retrievalbench/retrievalbench/systems/external/internal/proc"
	"github.com/retrievalbench/retrievalbench/systems/external/internal/template"
)

// httpTransport sends one request per query, to a hosted service or to a
// server that http.command starts on {port}.
type httpTransport struct {
	rt       *runtime
	client   *http.Client
	srv      *proc.Server // nil without http.command
	restarts int
	lastErr  error
}

func (t *httpTransport) start(ctx context.Context) error {
	t.client = &http.Client{Transport: t.rt.roundTripper()}
	if len(t.rt.cfg.HTTP.Command) == 0 {
		return nil
	}
	return t.startServer(ctx)
}

// startServer starts http.command and waits until it is ready (see
// startListening).
func (t *httpTransport) startServer(ctx context.Context) error {
	rt := t.rt
	argv, err := rt.base.ExpandAll(rt.cfg.HTTP.Command)
	if err != nil {
		return fmt.Errorf("http.command: %w", err)
	}
	ready, err := rt.base.Expand(rt.cfg.HTTP.ReadyURL)
	if err != nil {
		return fmt.Errorf("http.ready_url: %w", err)
	}
	srv, err := startListening(ctx, rt, "http.command", argv, ready)
	if err != nil {
		return err
	}
	t.srv = srv
	return nil
}

func (t *httpTransport) close() {
	if t.srv != nil {
		t.srv.Stop()
		t.srv = nil
	}
	if t.client != nil {
		t.client.CloseIdleConnections()
	}
}

func (t *httpTransport) call(ctx context.Context, v template.Vars) (mapping.Payload, template.Vars, error) {
	rt, h := t.rt, t.rt.cfg.HTTP
	if len(h.Command) > 0 && t.srv == nil {
		if t.restarts >= maxRestarts {
			return mapping.Payload{}, v, fmt.Errorf("server not restarted after %d restarts; last error: %w", maxRestarts, t.lastErr)
		}
		t.restarts++
		sctx, cancel := context.WithTimeout(ctx, rt.cfg.StartWait())
		err := t.startServer(sctx)
		cancel()
		if err != nil {
			t.lastErr = err
			return mapping.Payload{}, v, fmt.Errorf("restarting the server: %w", err)
		}
		rt.logf("%s: server restarted (%d of at most %d)", rt.name, t.restarts, maxRestarts)
	}
	req, err := t.request(ctx, v)
	if err != nil {
		return mapping.Payload{}, v, err
	}
	d := rt.cfg.CallTimeout()
	cctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var mark int64 // stderr of this query only
	if t.srv != nil {
		mark = t.srv.Tail.Mark()
	}
	body, status, err := t.do(req.WithContext(cctx))
	if err != nil {
		err = callTimeout(ctx, cctx, req.Method+" "+req.URL.Redacted(), d, err)
		if t.srv != nil {
			kill := errors.Is(err, context.DeadlineExceeded)
			st := t.srv.Status(kill) // waits a moment for a dying server
			err = proc.WithTailSince(fmt.Errorf("%w (%s)", err, st), t.srv.Tail, mark)
			if kill || t.srv.Gone() {
				t.srv.Stop() // a server that hangs or died is replaced for the next query
				t.srv, t.lastErr = nil, err
			}
		}
		return mapping.Payload{}, v, err
	}
	p := mapping.Payload{Text: string(body)}
	if t.srv != nil {
		p.Stderr = t.srv.Tail.Since(mark)
	}
	if status/100 != 2 {
		err := fmt.Errorf("%s %s: HTTP %d: %s", req.Method, req.URL.Redacted(), status, mapping.SnippetN(p.Text, 1<<10))
		if t.srv != nil {
			err = proc.WithTailSince(err, t.srv.Tail, mark)
		}
		return mapping.Payload{}, v, err
	}
	t.restarts = 0
	return p, v, nil
}

// request builds the query's request from the templates.
func (t *httpTransport) request(ctx context.Context, v template.Vars) (*http.Request, error) {
	h := t.rt.cfg.HTTP
	url, err := v.ExpandURL(h.URL)
	if err != nil {
		return nil, fmt.Errorf("http.url: %w", err)
	}
	method := h.Method
	var body io.Reader
	if h.Body != nil {
		x, err := v.ExpandJSON(h.Body)
		if err != nil {
			return nil, fmt.Errorf("http.body: %w", err)
		}
		b, err := json.Marshal(x)
		if err != nil {
			return nil, fmt.Errorf("http.body: %w", err)
		}
		body = bytes.NewReader(b)
		if method == "" {
			method = http.MethodPost
		}
	}
	if method == "" {
		method = http.MethodGet
	}
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		return nil, fmt.Errorf("http.url: %w", err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	for _, k := range slices.Sorted(maps.Keys(h.Headers)) {
		x, err := v.Expand(h.Headers[k])
		if err != nil {
			return nil, fmt.Errorf("http.headers.%s: %w", k, err)
		}
		req.Header.Set(k, x)
	}
	return req, nil
}

// do sends req and reads at most max_output_bytes of the body.
func (t *httpTransport) do(req *http.Request) ([]byte, int, error) {
	resp, err := t.client.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	limit := t.rt.cfg.OutputLimit()
	b, err := io.ReadAll(io.LimitReader(resp.Body, int64(limit)+1))
	if err != nil {
		return nil, 0, fmt.Errorf("reading the body: %w", err)
	}
	if len(b) > limit {
		return nil, 0, fmt.Errorf("body exceeds %d bytes (max_output_bytes)", limit)
	}
	return b, resp.StatusCode, nil
}
