package external

import (
	"github.com/retrievalbench/retrievalbench/systems/external/internal/config"
	"github.com/retrievalbench/retrievalbench/systems/external/internal/mapping"
)

// The config language lives in internal/config (the templates it uses in
// internal/template, the result section in internal/mapping); these are its
// names as users of package external know them.

// Config is one external system configuration, read from a JSON file by
// Load. docs/external-systems.md describes every field.
type Config = config.Config

// The sections and parts of a Config.
type (
	Requirement     = config.Requirement     // something the system needs on this machine
	CorpusSpec      = config.CorpusSpec      // how the corpus is handed over
	IndexSpec       = config.IndexSpec       // a command run once per corpus
	MCPSpec         = config.MCPSpec         // an MCP server and the tool calls of one query
	MCPCall         = config.MCPCall         // one tool call
	CommandSpec     = config.CommandSpec     // a command run per query
	HTTPSpec        = config.HTTPSpec        // one HTTP request per query
	ResultSpec      = config.ResultSpec      // how a result maps to hits
	RetrySpec       = config.RetrySpec       // how HTTP requests are retried
	UnsupportedSpec = config.UnsupportedSpec // a dataset pattern the system cannot do, and why
	Unmet           = config.Unmet           // a requirement that is not met
)

// Transport names.
const (
	TransportMCP     = config.TransportMCP
	TransportCommand = config.TransportCommand
	TransportHTTP    = config.TransportHTTP
)

// MCP transports over HTTP (mcp.http_transport).
const (
	MCPStreamable = config.MCPStreamable // Streamable HTTP (MCP 2025-03-26 and later)
	MCPSSE        = config.MCPSSE        // HTTP+SSE (MCP 2024-11-05)
)

// Result sources.
const (
	FromStructured = mapping.FromStructured // MCP structuredContent
	FromJSON       = mapping.FromJSON       // stdout, HTTP body or MCP text content parsed as JSON
	FromBlob       = mapping.FromBlob       // the text taken whole as one composite hit
	FromText       = mapping.FromText       // the text split into items where result.item_regex matches
)

// Defaults of the optional limits.
const (
	DefaultTimeout        = config.DefaultTimeout
	DefaultIndexTimeout   = config.DefaultIndexTimeout
	DefaultStartTimeout   = config.DefaultStartTimeout
	DefaultMaxOutputBytes = config.DefaultMaxOutputBytes
	DefaultRetryInitial   = config.DefaultRetryInitial
	DefaultRetryMaxDelay  = config.DefaultRetryMaxDelay
)

// ErrInvalidConfig is wrapped by every error Load and Validate return.
var ErrInvalidConfig = config.ErrInvalidConfig

// DefaultEnvPass is the environment every child inherits (config.DefaultEnvPass).
var DefaultEnvPass = config.DefaultEnvPass

// Load reads and validates the config file at path, and checks that every
// ${NAME} without a default is set here or named by a requires entry.
// Every problem found is reported, each as file:line: field: message.
func Load(path string) (*Config, error) { return config.Load(path) }

// LoadDir loads every *.json file of dir in name order. Every bad file is
// reported, and two files naming the same system/config are an error.
func LoadDir(dir string) ([]*Config, error) { return config.LoadDir(dir) }

// Parse is Load of data read from file (named in messages), without
// Load's check of the environment.
func Parse(file string, data []byte) (*Config, error) { return config.Parse(file, data) }
