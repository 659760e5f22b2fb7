package repoqa

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/datasets"
	"github.com/retrievalbench/retrievalbench/internal/testenv"
)

func TestQueryNaming(t *testing.T) {
	tests := []struct{ query, name, want, reason string }{
		{"Push adds the item to the list", "Push", NamesExact, "Go's convention: the name first"},
		{"A helper to poll a run status until it reaches a terminal state.", "poll", NamesExact, "the name as a word"},
		{"Poll the run until it is done", "poll", NamesExact, "case is ignored"},
		{"The input contains an enum.", "visit_enum", NamesNone, "one part of two"},
		{"Visit an enum value of the input", "visit_enum", NamesParts, "snake_case parts"},
		{"Returns the XA connection for this user", "getXAConnection", NamesNone, "get is missing"},
		{"Get the XA connection for this user", "getXAConnection", NamesParts, "camelCase parts with an acronym"},
		{"Gets the XA connection for this user", "getXAConnection", NamesNone, "no stemming: gets is not get"},
		{"Get the XAConnection", "getXAConnection", NamesParts, "parts of a query word count"},
		{"Notify variable and wake up all waiter", "broadcast", NamesNone, "not named"},
		{"Pushing items onto the list", "Push", NamesNone, "a longer word is not the name"},
	}
	for _, tc := range tests {
		if got := QueryNaming(tc.query, tc.name); got != tc.want {
			t.Errorf("%s: QueryNaming(%q, %q) = %q, want %q", tc.reason, tc.query, tc.name, got, tc.want)
		}
	}
	require.Equal(t, []string{"get", "xa", "connection"}, nameParts("getXAConnection"))
	require.Equal(t, []string{"visit", "enum"}, nameParts("visit_enum"))
	require.Equal(t, []string{"utf8", "decode"}, nameParts("UTF8Decode"))
}

func TestWordOverlap(t *testing.T) {
	tests := []struct {
		a, b string
		want float64
	}{
		{"Provision sets up a.", "Provision sets up a.", 1},
		// caddy: 4 words each, 3 shared → 3/5.
		{"Provision sets up a.", "Provision sets up h.", 0.6},
		{"Provision sets up the module.", "Validate checks the config.", 1.0 / 8},
		{"", "anything", 0},
	}
	for _, tc := range tests {
		if got := WordOverlap(tc.a, tc.b); got < tc.want-1e-9 || got > tc.want+1e-9 {
			t.Errorf("WordOverlap(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
		if WordOverlap(tc.a, tc.b) != WordOverlap(tc.b, tc.a) {
			t.Errorf("WordOverlap(%q, %q) is not symmetric", tc.a, tc.b)
		}
	}
}

func TestMaskLeading(t *testing.T) {
	got, ok := maskLeading("Push adds the item to the list", "Push")
	require.True(t, ok)
	require.Equal(t, "It adds the item to the list", got)
	require.Equal(t, NamesNone, QueryNaming(got, "Push"))
	for _, q := range []string{"Adds the item, like Push", "Pushes the item"} {
		got, ok := maskLeading(q, "Push")
		require.False(t, ok, q)
		require.Equal(t, q, got)
	}
}

// TestDecoyRule: of two methods whose comments say nearly the same
// (word overlap ≥ DefaultDecoyOverlap), neither becomes a task under the
// rule — whichever were chosen, the other's comment would stay indexed,
// nearer to the query than the gold — and both can without it.
func TestDecoyRule(t *testing.T) {
	body := " {\n" + strings.Repeat("\tx = x + 1\n", 6) + "}\n"
	src := "package a\n\n" +
		"// Provision sets up the HTTP handler.\nfunc (h *Handler) Provision() error" + body + "\n" +
		"// Provision sets up the TLS handler.\nfunc (t *TLS) Provision() error" + body + "\n" +
		"// Validate checks every field of the configuration.\nfunc (c *Config) Validate() error" + body
	require.GreaterOrEqual(t, WordOverlap("Provision sets up the HTTP handler.", "Provision sets up the TLS handler."), DefaultDecoyOverlap)
	repo := Repo{Repo: "o/r", Language: "go", Content: map[string]string{"a.go": src}}
	cfg := DefaultGeneratorConfig()
	tasks, _, note, st, err := generateDocRepoStats(&repo, "go", cfg)
	require.NoError(t, err)
	require.Len(t, tasks, 1, note)
	require.Equal(t, "Validate checks every field of the configuration.", tasks[0].Query)
	require.Equal(t, 2, st.rejected)
	require.Equal(t, []int{0}, st.decoys)
	require.Equal(t, NamesExact, tasks[0].Meta.Naming)

	cfg.DecoyOverlap = 0
	tasks, _, _, st, err = generateDocRepoStats(&repo, "go", cfg)
	require.NoError(t, err)
	require.Len(t, tasks, 3)
	decoyed := 0
	for i, tk := range tasks {
		if strings.HasPrefix(tk.Query, "Provision") {
			// Both chosen: each one's comment is removed, so neither is
			// the other's decoy in the index.
			require.Equal(t, 0, st.decoys[i], tk.ID)
		}
		decoyed += st.decoys[i]
	}
	require.Equal(t, 0, decoyed)

	cfg.PerRepo = 1
	tasks, _, _, st, err = generateDocRepoStats(&repo, "go", cfg)
	require.NoError(t, err)
	require.Len(t, tasks, 1)
	if strings.HasPrefix(tasks[0].Query, "Provision") {
		require.Equal(t, []int{1}, st.decoys, "the other Provision's comment stays indexed")
	}

	cfg = DefaultGeneratorConfig()
	cfg.MaskLeadingName = true
	tasks, _, _, _, err = generateDocRepoStats(&repo, "go", cfg)
	require.NoError(t, err)
	require.Equal(t, "It checks every field of the configuration.", tasks[0].Query)
	require.Equal(t, NamesNone, tasks[0].Meta.Naming)
}

// TestReadMarkup: the queries of the data pack's tasks that kept markup
// (issue 41), read as their rendered documentation reads.
func TestReadMarkup(t *testing.T) {
	tests := []struct{ lang, in, want, reason string }{
		{"cpp", "Same as &l:BodyDecoder::decodeToDto (); but Async.", "Same as BodyDecoder::decodeToDto (); but Async.", "oatpp's link marker"},
		{"cpp", "Returns a substring [pos, pos + count). If the requested substring extends past the end", "Returns a substring [pos, pos + count). If the requested substring extends past the end", "a C++ range is not a link"},
		{"java", "Returns the next value as a {@link JsonElement}.", "Returns the next value as a JsonElement.", "Javadoc link"},
		{"java", "Same as {@link #parse(Reader) parse} but lenient.", "Same as parse but lenient.", "Javadoc link with a label"},
		{"java", "Delegates to {@link Streams#parse}.", "Delegates to Streams.parse.", "member link"},
		{"java", "Returns {@code null} when empty.", "Returns null when empty.", "code tag"},
		{"typescript", "Gets the download URL for the given {@link https://cloud.google.com/x/file | File}.", "Gets the download URL for the given File.", "TSDoc link with text"},
		{"typescript", "Parse the content with `parse5` in the context of the given `ParentNode`.", "Parse the content with parse5 in the context of the given ParentNode.", "code spans"},
		{"typescript", "It takes a string like `foo[x][y][z]` and returns an array", "It takes a string like foo[x][y][z] and returns an array", "indexing inside a code span is no link"},
		{"typescript", "Create an assistant file by attaching a [File](https://platform.openai.com/docs/api-reference/files) to an [assistant](https://platform.openai.com/docs).", "Create an assistant file by attaching a File to an assistant.", "Markdown links"},
		{"rust", "Creates a new [`struct@SchedulerMetadata`]", "Creates a new SchedulerMetadata", "rustdoc link with a disambiguator"},
		{"rust", "Send off an [`Event::Log`] event to the broker. This is a shortcut for [`EventFirer::fire`] with [`Event::Log`] as argument.", "Send off an Event::Log event to the broker. This is a shortcut for EventFirer::fire with Event::Log as argument.", "rustdoc paths"},
		{"rust", "Create a new [`TlsSettings`] similar to [TlsSettings::intermediate()].", "Create a new TlsSettings similar to TlsSettings::intermediate().", "bare link to a call"},
		{"rust", "Create a new `PushStageSharedState` that can be used by all [`PushStage`]s", "Create a new PushStageSharedState that can be used by all PushStages", "a plural after a link"},
		{"rust", "The buffer is [MTLPrivate](https://developer.apple.com/documentation/metal/mtlstoragemode) This means", "The buffer is MTLPrivate This means", "Markdown link"},
		{"go", "GetLookupdTopics returns a []string containing a union of all the topics", "GetLookupdTopics returns a []string containing a union of all the topics", "a Go slice type is no link"},
		{"go", "Parse parses the input with [Options] like [json.Unmarshal].", "Parse parses the input with Options like json.Unmarshal.", "godoc links"},
	}
	for _, tc := range tests {
		if got := readMarkup(tc.lang, tc.in); got != tc.want {
			t.Errorf("%s (%s):\n got %q\nwant %q", tc.reason, tc.lang, got, tc.want)
		}
	}
}

// TestDocSummaryParamLines: block tags (@param, @return, \param) end the
// summary, as the rendered documentation puts them apart; a comment made
// of tags only has no summary.
func TestDocSummaryParamLines(t *testing.T) {
	tests := []struct{ lang, comment, want string }{
		{"java", "/**\n * Checks the hash of the given password.\n * @param hash the hash\n * @return true when it matches\n */\n", "Checks the hash of the given password."},
		{"java", "/**\n * @param hash the hash to check against the password\n * @return true when it matches\n */\n", ""},
		{"cpp", "/**\n * Computes the checksum of a block.\n * \\param block the block\n */\n", "Computes the checksum of a block."},
		{"typescript", "/**\n * Resolve or reject a Promise based on response status.\n *\n * @param {Function} resolve A function that resolves the promise.\n */\n", "Resolve or reject a Promise based on response status."},
	}
	for _, tc := range tests {
		if got := docSummary(tc.lang, tc.comment, 40); got != tc.want {
			t.Errorf("%s %q: summary %q, want %q", tc.lang, tc.comment, got, tc.want)
		}
	}
}

// TestCppReferenceReturningName: a function returning a reference or a
// pointer is named by its declarator's name, qualified by its class
// (clickhouse-cpp's factory.cpp and mlx's compile.cpp, issue 41).
func TestCppReferenceReturningName(t *testing.T) {
	src := `namespace clickhouse {
namespace {
static const TypeAst& GetASTChildElement(const TypeAst & ast, int position) {
    return ast.elements[position];
}
}
std::vector<uint64_t>& CompilerCache::constants() {
    return constants_;
}
const char* Block::Iterator::Name() const {
    return block_.columns_[idx_].name.c_str();
}
}
`
	defs, err := parseDefinitions("cpp", "a.cpp", []byte(src))
	require.NoError(t, err)
	var names []string
	for _, d := range defs {
		names = append(names, d.Qualified)
	}
	require.Equal(t, []string{"clickhouse", "clickhouse.GetASTChildElement", "clickhouse.CompilerCache.constants", "clickhouse.Block.Iterator.Name"}, names)
}

// TestDocMaskedData: repoqa-go-doc-masked has go-doc's tasks in go-doc's
// splits, the queries that start with their target's name start with
// MaskWord instead, every other query is unchanged, and most Go queries no
// longer name their target exactly.
func TestDocMaskedData(t *testing.T) {
	testenv.MustHaveData(t, DocCorporaFile("go"))
	dir, _ := testenv.DataDir()
	masked := DefaultConfig()
	masked.Generator.MaskLeadingName = true
	for _, split := range []string{datasets.SplitAll, "test"} {
		plain, err := DocComment(dir, "go", split, DefaultConfig())
		require.NoError(t, err)
		m, err := DocComment(dir, "go", split, masked)
		require.NoError(t, err)
		require.Equal(t, MaskedName("go"), m.Name)
		require.Equal(t, len(plain.Tasks), len(m.Tasks), split)
		n, exact := 0, 0
		for i, tk := range m.Tasks {
			p := plain.Tasks[i]
			require.Equal(t, p.ID, tk.ID)
			require.Equal(t, p.Gold, tk.Gold)
			name := p.Gold[0].ID[strings.LastIndexAny(p.Gold[0].ID, "#.")+1:]
			name, _, _ = strings.Cut(name, "~")
			if first, rest, _ := strings.Cut(p.Query, " "); first == name {
				require.Equal(t, MaskWord+" "+rest, tk.Query)
				n++
			} else {
				require.Equal(t, p.Query, tk.Query)
			}
			if tk.Meta.Naming == NamesExact {
				exact++
			}
		}
		t.Logf("%s: %d of %d queries masked; %d still name their target exactly", split, n, len(m.Tasks), exact)
		if split == datasets.SplitAll && (n*2 < len(m.Tasks) || exact*4 > len(m.Tasks)) {
			t.Errorf("%d of %d masked, %d still exact: the mask missed Go's convention", n, len(m.Tasks), exact)
		}
	}
}
