package external

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxRestarts is how many times in a row a server that failed a call
// (crashed, hung, broke the protocol) is started again before every later
// query fails with its last error.
const maxRestarts = 3

// mcpTransport talks to a server over stdio with the official Go SDK.
type mcpTransport struct {
	rt       *runtime
	srv      *server
	sess     *mcp.ClientSession
	restarts int
	lastErr  error
}

func (t *mcpTransport) start(ctx context.Context) error { return t.connect(ctx) }

// connect starts the server and performs the MCP handshake. Its stdout is
// read through the SDK with a frame cap of max_output_bytes, so one huge
// reply fails the call instead of filling memory.
func (t *mcpTransport) connect(ctx context.Context) error {
	rt := t.rt
	argv, err := rt.base.expandAll(rt.cfg.MCP.Command)
	if err != nil {
		return fmt.Errorf("mcp.command: %w", err)
	}
	srv, err := startServer(rt.life, argv, rt.env, rt.work, true, rt.red, rt.peak)
	if err != nil {
		return err
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "retrievalbench", Version: hashVersion}, nil)
	tr := &mcp.IOTransport{Reader: srv.out, Writer: srv.stdin, MaxLineLength: rt.cfg.maxOutput()}
	sess, err := client.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: rt.cfg.MCP.ProtocolVersion})
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			err = fmt.Errorf("no answer within %s (start_timeout): %w", rt.cfg.startTimeout(), err)
		}
		err = withTail(fmt.Errorf("MCP handshake with %s: %w (%s)", argv[0], err, srv.status(true)), srv.tail)
		srv.stop()
		return err
	}
	t.srv, t.sess = srv, sess
	return nil
}

// stop ends the session and the server's process group.
func (t *mcpTransport) stop() {
	if t.srv == nil {
		return
	}
	closed := make(chan struct{})
	go func() {
		t.sess.Close()
		close(closed)
	}()
	t.srv.stop()
	<-closed
	t.srv, t.sess = nil, nil
}

func (t *mcpTransport) close() { t.stop() }

func (t *mcpTransport) call(ctx context.Context, v vars) (payload, vars, error) {
	rt := t.rt
	if t.sess == nil {
		if t.restarts >= maxRestarts {
			return payload{}, v, fmt.Errorf("server not restarted after %d restarts; last error: %w", maxRestarts, t.lastErr)
		}
		t.restarts++
		sctx, cancel := context.WithTimeout(ctx, rt.cfg.startTimeout())
		err := t.connect(sctx)
		cancel()
		if err != nil {
			t.lastErr = err
			return payload{}, v, fmt.Errorf("restarting the server: %w", err)
		}
		rt.logf("%s: server restarted (%d of at most %d)", rt.name, t.restarts, maxRestarts)
	}
	d := rt.cfg.timeout()
	mark := t.srv.tail.mark() // stderr of this query only
	var p payload
	for i, c := range rt.cfg.MCP.Calls {
		what := fmt.Sprintf("call %d (%s)", i, c.Tool)
		args, err := v.expandJSON(map[string]any(c.Arguments))
		if err != nil {
			return payload{}, v, fmt.Errorf("%s: arguments: %w", what, err)
		}
		cctx, cancel := context.WithTimeout(ctx, d)
		res, err := t.sess.CallTool(cctx, &mcp.CallToolParams{Name: c.Tool, Arguments: args})
		cancel()
		if err != nil {
			// The session may be broken (crash, garbage, oversize) or the
			// server busy forever (hang): replace it for the next query.
			err = withTailSince(fmt.Errorf("%w (%s)", callTimeout(ctx, cctx, what, d, err), t.srv.status(true)), t.srv.tail, mark)
			t.stop()
			t.lastErr = err
			return payload{}, v, err
		}
		p = payload{structured: res.StructuredContent, stderr: t.srv.tail.since(mark)}
		var texts []string
		for _, ct := range res.Content {
			if tc, ok := ct.(*mcp.TextContent); ok {
				texts = append(texts, tc.Text)
			}
		}
		p.text = joinText(texts)
		if res.IsError {
			return payload{}, v, withTailSince(fmt.Errorf("%s: the tool reported an error: %s", what, snippetN(p.text, 1<<10)), t.srv.tail, mark)
		}
		for _, name := range slices.Sorted(maps.Keys(c.Capture)) {
			x, err := capture(p, c.Capture[name])
			if err != nil {
				return payload{}, v, fmt.Errorf("%s: capture %s: %w", what, name, err)
			}
			v = v.with(phCapture+name, x)
		}
	}
	t.restarts = 0 // the budget is for consecutive failures
	return p, v, nil
}
