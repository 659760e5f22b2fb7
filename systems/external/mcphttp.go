package external

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/retrievalbench/retrievalbench/systems/external/internal/proc"
)

// connectHTTP connects to an MCP server over HTTP at mcp.url — Streamable
// HTTP, or the older HTTP+SSE with mcp.http_transport "sse" — after
// starting mcp.command on {port} and waiting for it when there is one.
// mcp.headers go with every request; each event the server sends is capped
// at max_output_bytes.
func (t *mcpTransport) connectHTTP(ctx context.Context) error {
	rt, m := t.rt, t.rt.cfg.MCP
	endpoint, err := rt.base.Expand(m.URL)
	if err != nil {
		return fmt.Errorf("mcp.url: %w", err)
	}
	headers := http.Header{}
	for _, k := range slices.Sorted(maps.Keys(m.Headers)) {
		x, err := rt.base.Expand(m.Headers[k])
		if err != nil {
			return fmt.Errorf("mcp.headers.%s: %w", k, err)
		}
		headers.Set(k, x)
	}
	var srv *proc.Server
	if len(m.Command) > 0 {
		argv, err := rt.base.ExpandAll(m.Command)
		if err != nil {
			return fmt.Errorf("mcp.command: %w", err)
		}
		ready, err := rt.base.Expand(m.ReadyURL)
		if err != nil {
			return fmt.Errorf("mcp.ready_url: %w", err)
		}
		if srv, err = startListening(ctx, rt, "mcp.command", argv, ready); err != nil {
			return err
		}
	}
	client := &http.Client{Transport: &headerTransport{base: rt.roundTripper(), headers: headers}}
	var tr mcp.Transport
	if m.HTTPTransport == MCPSSE {
		tr = &lastingTransport{&mcp.SSEClientTransport{Endpoint: endpoint, HTTPClient: client, MaxEventSize: rt.cfg.OutputLimit()}, rt.life}
	} else {
		// No standalone GET stream: the calls need only their answers,
		// and stateless servers refuse it.
		tr = &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: client, MaxEventSize: rt.cfg.OutputLimit(),
			DisableStandaloneSSE: true, MaxRetries: -1}
	}
	sess, err := t.handshake(ctx, tr)
	if err != nil {
		err = fmt.Errorf("MCP handshake with %s: %w", endpoint, err)
		if srv != nil {
			err = proc.WithTail(fmt.Errorf("%w (%s)", err, srv.Status(true)), srv.Tail)
			srv.Stop()
		}
		return err
	}
	t.srv, t.sess = srv, sess
	return nil
}

// headerTransport adds the configured headers to every request.
type headerTransport struct {
	base    http.RoundTripper
	headers http.Header
}

func (h *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for k, v := range h.headers {
		req.Header[k] = v
	}
	return h.base.RoundTrip(req)
}

// lastingTransport connects with a context that outlives the handshake:
// the SSE transport's event stream is a GET request made with the context
// Connect receives, which is start_timeout's. The handshake stays bounded
// by it: only the stream is detached, to end with the system (life).
type lastingTransport struct {
	mcp.Transport
	life context.Context
}

func (l *lastingTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	sctx, cancel := context.WithCancel(l.life)
	detach := context.AfterFunc(ctx, cancel) // until connected, ctx's end ends it
	conn, err := l.Transport.Connect(sctx)
	if !detach() || err != nil {
		cancel()
		if err == nil {
			conn.Close()
			err = ctx.Err()
		}
		return nil, err
	}
	return conn, nil
}
