package external

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/retrievalbench/retrievalbench/systems/external/internal/config"
	"github.com/retrievalbench/retrievalbench/systems/external/internal/mapping"
	"github.com/retrievalbench/retrievalbench/systems/external/internal/proc"
	"github.com/retrievalbench/retrievalbench/systems/external/internal/template"
)

// maxRestarts is how many times in a row a server that failed a call
// (crashed, hung, broke the protocol) is started again before every later
// query fails with its last error.
const maxRestarts = 3

// mcpTransport talks to a server over stdio with the official Go SDK.
type mcpTransport struct {
	rt       *runtime
	srv      *proc.Server
	sess     *mcp.ClientSession
	restarts int
	lastErr  error
}

func (t *mcpTransport) start(ctx context.Context) error { return t.connect(ctx) }

// connect starts the server (if there is one) and performs the MCP
// handshake, over stdio or over HTTP (mcphttp.go).
func (t *mcpTransport) connect(ctx context.Context) error {
	if t.rt.cfg.MCP.URL != "" {
		return t.connectHTTP(ctx)
	}
	return t.connectStdio(ctx)
}

// connectStdio starts the stdio server and performs the handshake. Its
// stdout is read through the SDK with a frame cap of max_output_bytes, so
// one huge reply fails the call instead of filling memory.
func (t *mcpTransport) connectStdio(ctx context.Context) error {
	rt := t.rt
	argv, err := rt.base.ExpandAll(rt.cfg.MCP.Command)
	if err != nil {
		return fmt.Errorf("mcp.command: %w", err)
	}
	srv, err := proc.StartServer(rt.life, argv, rt.env, rt.work, true, rt.red, rt.peak)
	if err != nil {
		return err
	}
	tr := &mcp.IOTransport{Reader: srv.Out, Writer: srv.Stdin, MaxLineLength: rt.cfg.OutputLimit()}
	sess, err := t.handshake(ctx, tr)
	if err != nil {
		err = proc.WithTail(fmt.Errorf("MCP handshake with %s: %w (%s)", argv[0], err, srv.Status(true)), srv.Tail)
		srv.Stop()
		return err
	}
	t.srv, t.sess = srv, sess
	return nil
}

// handshake connects an MCP client over tr within ctx (start_timeout).
func (t *mcpTransport) handshake(ctx context.Context, tr mcp.Transport) (*mcp.ClientSession, error) {
	rt := t.rt
	client := mcp.NewClient(&mcp.Implementation{Name: "retrievalbench", Version: config.HashVersion}, nil)
	sess, err := client.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: rt.cfg.MCP.ProtocolVersion})
	if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		err = fmt.Errorf("no answer within %s (start_timeout): %w", rt.cfg.StartWait(), err)
	}
	return sess, err
}

// stop ends the session and the server's process group.
func (t *mcpTransport) stop() {
	if t.sess == nil && t.srv == nil {
		return
	}
	if t.srv != nil {
		t.srv.LookAtPeak() // closing the session closes its stdin: it may exit at once
	}
	closed := make(chan struct{})
	go func() {
		if t.sess != nil {
			t.sess.Close()
		}
		close(closed)
	}()
	if t.srv != nil {
		t.srv.Stop()
	}
	<-closed
	t.srv, t.sess = nil, nil
}

// fault adds to err what is known of the server of a failed call: its
// state (killing: it is about to be stopped) and what it wrote to stderr
// since mark. A hosted server has neither.
func (t *mcpTransport) fault(err error, killing bool, mark int64) error {
	if t.srv == nil {
		return err
	}
	if killing {
		err = fmt.Errorf("%w (%s)", err, t.srv.Status(true))
	}
	return proc.WithTailSince(err, t.srv.Tail, mark)
}

// stderrMark is the position in the server's stderr before a query.
func (t *mcpTransport) stderrMark() int64 {
	if t.srv == nil {
		return 0
	}
	return t.srv.Tail.Mark()
}

// stderrSince is what the server wrote to stderr since mark.
func (t *mcpTransport) stderrSince(mark int64) string {
	if t.srv == nil {
		return ""
	}
	return t.srv.Tail.Since(mark)
}

func (t *mcpTransport) close() { t.stop() }

func (t *mcpTransport) call(ctx context.Context, v template.Vars) (mapping.Payload, template.Vars, error) {
	rt := t.rt
	if t.sess == nil {
		if t.restarts >= maxRestarts {
			return mapping.Payload{}, v, fmt.Errorf("server not restarted after %d restarts; last error: %w", maxRestarts, t.lastErr)
		}
		t.restarts++
		sctx, cancel := context.WithTimeout(ctx, rt.cfg.StartWait())
		err := t.connect(sctx)
		cancel()
		if err != nil {
			t.lastErr = err
			return mapping.Payload{}, v, fmt.Errorf("restarting the server: %w", err)
		}
		rt.logf("%s: server restarted (%d of at most %d)", rt.name, t.restarts, maxRestarts)
	}
	d := rt.cfg.CallTimeout()
	mark := t.stderrMark() // stderr of this query only
	var p mapping.Payload
	for i, c := range rt.cfg.MCP.Calls {
		what := fmt.Sprintf("call %d (%s)", i, c.Tool)
		args, err := v.ExpandJSON(map[string]any(c.Arguments))
		if err != nil {
			return mapping.Payload{}, v, fmt.Errorf("%s: arguments: %w", what, err)
		}
		cctx, cancel := context.WithTimeout(ctx, d)
		res, err := t.sess.CallTool(cctx, &mcp.CallToolParams{Name: c.Tool, Arguments: args})
		cancel()
		if err != nil {
			// The session may be broken (crash, garbage, oversize) or the
			// server busy forever (hang): replace it for the next query.
			err = t.fault(callTimeout(ctx, cctx, what, d, err), true, mark)
			t.stop()
			t.lastErr = err
			return mapping.Payload{}, v, err
		}
		p = mapping.Payload{Structured: res.StructuredContent, Stderr: t.stderrSince(mark)}
		var texts []string
		for _, ct := range res.Content {
			if tc, ok := ct.(*mcp.TextContent); ok {
				texts = append(texts, tc.Text)
			}
		}
		p.Text = mapping.JoinText(texts)
		if res.IsError {
			return mapping.Payload{}, v, t.fault(fmt.Errorf("%s: the tool reported an error: %s", what, mapping.SnippetN(p.Text, 1<<10)), false, mark)
		}
		for _, name := range slices.Sorted(maps.Keys(c.Capture)) {
			x, err := mapping.Capture(p, c.Capture[name])
			if err != nil {
				return mapping.Payload{}, v, fmt.Errorf("%s: capture %s: %w", what, name, err)
			}
			v = v.With(template.PhCapture+name, x)
		}
	}
	t.restarts = 0 // the budget is for consecutive failures
	return p, v, nil
}
