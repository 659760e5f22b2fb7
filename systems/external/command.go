package external

import (
	"context"
	"fmt"
)

// commandTransport runs command.search once per query; its stdout is the
// result.
type commandTransport struct{ rt *runtime }

func (t *commandTransport) start(context.Context) error { return nil }
func (t *commandTransport) close()                      {}

func (t *commandTransport) call(ctx context.Context, v vars) (payload, vars, error) {
	argv, err := v.expandAll(t.rt.cfg.Command.Search)
	if err != nil {
		return payload{}, v, fmt.Errorf("command.search: %w", err)
	}
	d := t.rt.cfg.timeout()
	cctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	out, stderr, err := run(cctx, argv, t.rt.env, t.rt.work, t.rt.cfg.maxOutput(), t.rt.red, t.rt.peak)
	if err != nil {
		return payload{}, v, callTimeout(ctx, cctx, "search", d, err)
	}
	return payload{text: string(out), stderr: stderr}, v, nil
}
