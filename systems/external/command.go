package external

import (
	"context"
	"fmt"

	"github.com/retrievalbench/retrievalbench/systems/external/internal/mapping"
	"github.com/retrievalbench/retrievalbench/systems/external/internal/proc"
	"github.com/retrievalbench/retrievalbench/systems/external/internal/template"
)

// commandTransport runs command.search once per query; its stdout is the
// result.
type commandTransport struct{ rt *runtime }

func (t *commandTransport) start(context.Context) error { return nil }
func (t *commandTransport) close()                      {}

func (t *commandTransport) call(ctx context.Context, v template.Vars) (mapping.Payload, template.Vars, error) {
	argv, err := v.ExpandAll(t.rt.cfg.Command.Search)
	if err != nil {
		return mapping.Payload{}, v, fmt.Errorf("command.search: %w", err)
	}
	d := t.rt.cfg.CallTimeout()
	cctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	out, stderr, err := proc.Run(cctx, argv, t.rt.env, t.rt.work, t.rt.cfg.OutputLimit(), t.rt.red, t.rt.peak)
	if err != nil {
		return mapping.Payload{}, v, callTimeout(ctx, cctx, "search", d, err)
	}
	return mapping.Payload{Text: string(out), Stderr: stderr}, v, nil
}
