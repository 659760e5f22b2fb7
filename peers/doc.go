// Package peers holds the real external systems measured next to the
// built-in ones: their external-system configs (pydocs-mcp.json,
// codira-onnx.json, codira-lexical.json, context7.json, neuledge.json; the
// format is systems/external's), the pinned installer install.sh that
// `make peers` runs (lock files pydocs-mcp.lock, codira.lock and
// context7/package-lock.json), and, in context7api, a loopback
// Context7-compatible API for the real Context7 MCP server. docs/peers.md
// says how each peer runs offline and what was measured.
package peers
