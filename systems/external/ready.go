package external

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/retrievalbench/retrievalbench/systems/external/internal/proc"
	"github.com/retrievalbench/retrievalbench/systems/external/internal/template"
)

// startListening starts a local server (http.command, or mcp.command with
// mcp.url) and waits until it is ready: until readyURL answers a GET with
// a 2xx status when one is configured, else until it accepts TCP
// connections on 127.0.0.1:{port}. It fails early if the server exits
// first, and at ctx's end (start_timeout) naming the limit; the server is
// stopped on failure.
func startListening(ctx context.Context, rt *runtime, field string, argv []string, readyURL string) (*proc.Server, error) {
	srv, err := proc.StartServer(rt.life, argv, rt.env, rt.work, false, rt.red, rt.peak)
	if err != nil {
		return nil, err
	}
	addr := net.JoinHostPort("127.0.0.1", rt.base.Values[template.PhPort])
	what := "listen on " + addr
	if readyURL != "" {
		what = "answer GET " + readyURL + " with 2xx"
	}
	client := &http.Client{Timeout: time.Second}
	defer client.CloseIdleConnections()
	last := ""
	for {
		if done, werr := srv.Exited(); done {
			srv.Stop()
			return nil, proc.WithTail(fmt.Errorf("%s (%s) exited before it would %s: %v", argv[0], field, what, werr), srv.Tail)
		}
		if readyURL == "" {
			c, err := (&net.Dialer{Timeout: time.Second}).DialContext(ctx, "tcp", addr)
			if err == nil {
				c.Close()
				return srv, nil
			}
		} else if req, err := http.NewRequestWithContext(ctx, http.MethodGet, readyURL, nil); err == nil {
			resp, err := client.Do(req)
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode/100 == 2 {
					return srv, nil
				}
				last = fmt.Sprintf(" (last answer: HTTP %d)", resp.StatusCode)
			}
		}
		select {
		case <-ctx.Done():
			srv.Stop()
			return nil, proc.WithTail(fmt.Errorf("%s (%s) did not %s within %s (start_timeout)%s: %w", argv[0], field, what, rt.cfg.StartWait(), last, ctx.Err()), srv.Tail)
		case <-time.After(50 * time.Millisecond):
		}
	}
}
