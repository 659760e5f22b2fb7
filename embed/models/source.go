package models

// Where a model was described (Model.Source), as the leaderboard shows it.
const (
	SourceBuiltin  = "built-in"      // the embedded manifest
	SourceManifest = "user manifest" // a user manifest (-model-manifest, $RETRIEVALBENCH_MODEL_MANIFEST)
	SourceFolder   = "folder"        // an exported folder read by FromDir
	SourceEndpoint = "endpoint"      // an OpenAI-compatible server (kind endpoint)
)

// Source says where m was described: SourceEndpoint for a served model,
// else SourceBuiltin, SourceFolder (FromDir: the folder is its Origin) or
// SourceManifest; "" for a model built in Go without an Origin.
func (m Model) Source() string {
	switch {
	case m.IsEndpoint():
		return SourceEndpoint
	case m.Origin == OriginBuiltin:
		return SourceBuiltin
	case m.Origin == "":
		return ""
	case m.Dir != "" && m.Origin == m.Dir:
		return SourceFolder
	}
	return SourceManifest
}
