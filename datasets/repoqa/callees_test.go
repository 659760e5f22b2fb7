package repoqa

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	sitter "github.com/tree-sitter/go-tree-sitter"

	"github.com/retrievalbench/retrievalbench/datasets"
	"github.com/retrievalbench/retrievalbench/internal/testenv"
)

// goldIDs returns the gold IDs of the task with id (nil when absent).
func goldIDs(ds *datasets.Dataset, id string) []string {
	for _, t := range ds.Tasks {
		if t.ID == id {
			var out []string
			for _, g := range t.Gold {
				out = append(out, g.ID)
			}
			return out
		}
	}
	return nil
}

// TestDocStructuralSynthetic checks the resolution rules on a small Go
// package and a Java package: what resolves, in call order, and what is
// left out (standard library, variables, ambiguity, test files,
// recursion, trivial callees, a wrong argument count).
func TestDocStructuralSynthetic(t *testing.T) {
	goSrc := `package srv

import (
	"fmt"
	"strings"

	"github.com/acme/tool/v2/internal/wire"
)

// Serve answers every request of the queue until it is closed.
func (s *Server) Serve(q []string) error {
	for _, r := range q {
		fmt.Println(strings.ToUpper(r))
		s.Serve(nil)
		s.name()
		other.handle(r)
		helper(r)
		s.handle(r)
		parse(r)
		wire.Encode(r)
	}
	return nil
}

func (s *Server) handle(r string) {
	a := r + "1"
	b := a + "2"
	fmt.Println(a, b)
}

func (s *Server) name() string {
	return s.n
}

func parse(r string) {
	a := r
	b := a
	fmt.Println(a, b)
}
`
	goOther := `package srv

func helper(r string) {
	a := r
	b := a
	println(a, b)
}
`
	goTest := `package srv

func helper(r string) {
	a := r
	b := a
	println(a, b)
}
`
	goWire := `package wire

func Encode(r string) {
	a := r
	b := a
	println(a, b)
}
`
	javaSrc := `package a.b;

import a.c.Codec;

public class Pool {
  /** Borrows a connection from the pool, opening one when needed. */
  public Conn borrow(int timeout) {
    Conn c = idle.poll();
    if (c == null) {
      c = open(timeout);
      c = open(timeout, true);
      this.check(c);
      Codec.encode(c);
      Util.log(c);
      Util.missing(c);
      c.close();
    }
    return c;
  }

  Conn open(int timeout) {
    Conn c = new Conn();
    c.timeout = timeout;
    return c;
  }

  Conn open(int timeout, boolean fast) {
    Conn c = new Conn();
    c.fast = fast;
    return c;
  }

  void check(Conn c) {
    if (c == null) {
      throw new IllegalStateException();
    }
  }
}
`
	javaUtil := `package a.b;

class Util {
  static void log(Object o) {
    String s = o.toString();
    System.out.println(s);
  }
}
`
	javaCodec := `package a.c;

public class Codec {
  public static void encode(Object o) {
    String s = o.toString();
    System.out.println(s);
  }
}
`
	rel := &Release{File: "synthetic", Repos: []Repo{
		{Repo: "acme/tool", Language: "go", Content: map[string]string{
			"srv/server.go": goSrc, "srv/other.go": goOther, "srv/other_test.go": goTest, "internal/wire/wire.go": goWire,
		}},
		{Repo: "acme/pool", Language: "java", Content: map[string]string{
			"src/a/b/Pool.java": javaSrc, "src/a/b/Util.java": javaUtil, "src/a/c/Codec.java": javaCodec,
		}},
	}}
	cfg := DefaultGeneratorConfig()
	ds, err := GenerateStructural(rel, "go", cfg)
	require.NoError(t, err)
	// helper is defined in srv/other.go and srv/other_test.go: ambiguous.
	// s.name is a one-line accessor, s.Serve the seed itself, other.handle
	// a call through a variable, fmt and strings the standard library.
	want := []string{"srv/server.go#Server.handle", "srv/server.go#parse", "internal/wire/wire.go#Encode"}
	if d := cmp.Diff(want, goldIDs(ds, "acme/tool::srv/server.go#Server.Serve")); d != "" {
		t.Errorf("go callees (-want +got):\n%s\n%v", d, ds.Dropped)
	}
	ds, err = GenerateStructural(rel, "java", cfg)
	require.NoError(t, err)
	// open(timeout) and open(timeout, true) pick their overload by
	// argument count; the first three resolved callees are kept.
	want = []string{"src/a/b/Pool.java#Pool.open", "src/a/b/Pool.java#Pool.open~2", "src/a/b/Pool.java#Pool.check"}
	if d := cmp.Diff(want, goldIDs(ds, "acme/pool::src/a/b/Pool.java#Pool.borrow")); d != "" {
		t.Errorf("java callees (-want +got):\n%s\n%v", d, ds.Dropped)
	}
	// Past the cap: the imported class and the same-package class resolve.
	ix := &calleeIndex{lang: "java", repo: "acme/pool", content: rel.Repos[1].Content, cfg: cfg, files: map[string]*indexedFile{}}
	defer ix.close()
	seed, err := ix.seedTarget(datasets.Task{Gold: []datasets.Relevant{{ID: "src/a/b/Pool.java#Pool.borrow"}}})
	require.NoError(t, err)
	var got []string
	walk(seed.node(), func(n *sitter.Node) {
		if n.Kind() != "method_invocation" {
			return
		}
		ts, err := ix.resolveJava(seed, n)
		require.NoError(t, err)
		name := n.ChildByFieldName("name").Utf8Text(seed.f.src)
		if len(ts) == 1 {
			got = append(got, name+"→"+ts[0].f.path+"#"+ts[0].def().Qualified)
		} else {
			got = append(got, name+"→none")
		}
	})
	want = []string{"poll→none", "open→src/a/b/Pool.java#Pool.open", "open→src/a/b/Pool.java#Pool.open", "check→src/a/b/Pool.java#Pool.check",
		"encode→src/a/c/Codec.java#Codec.encode", "log→src/a/b/Util.java#Util.log", "missing→none", "close→none"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("java resolution (-want +got):\n%s", d)
	}
}

// TestDocStructuralData checks generated tasks of the data pack against
// callees read by hand in the repositories' source.
func TestDocStructuralData(t *testing.T) {
	tests := []struct {
		lang, repo, id string
		want           []string
		why            string
		// anyDecoy generates without the decoy rule: the seed has a
		// sibling of near-identical comment, but its callees are as good
		// a check of the resolver.
		anyDecoy bool
	}{
		{"go", "nsqio/nsq", "nsqio/nsq::internal/clusterinfo/data.go#ClusterInfo.GetNSQDStats",
			[]string{"internal/clusterinfo/data.go#ClusterInfo.logf"},
			"c.logf(…) is a method of the receiver's type; the rest are calls through variables (client, p) and the standard library", false},
		{"go", "schollz/croc", "schollz/croc::src/cli/cli.go#Run",
			[]string{"src/utils/utils.go#Exists", "src/cli/cli.go#send", "src/cli/cli.go#receive"},
			"utils.Exists through the import github.com/schollz/croc/v9/src/utils; utils.GetInput is a short get-accessor; send(c) and receive(c) in the actions' closures", false},
		{"java", "square/retrofit", "square/retrofit::retrofit/src/main/java/retrofit2/HttpServiceMethod.java#HttpServiceMethod.parseAnnotations",
			[]string{"retrofit/src/main/java/retrofit2/Utils.java#Utils.getParameterUpperBound", "retrofit/src/main/java/retrofit2/Utils.java#Utils.isUnit",
				"retrofit/src/main/java/retrofit2/SkipCallbackExecutorImpl.java#SkipCallbackExecutorImpl.ensurePresent"},
			"Utils.getParameterLowerBound is a 4-line get-accessor; getRawType and methodError are static imports (not resolved); the cap of 3 leaves createCallAdapter out", true},
		{"java", "square/retrofit", "square/retrofit::retrofit/src/main/java/retrofit2/OkHttpCall.java#OkHttpCall.getRawCall",
			[]string{"retrofit/src/main/java/retrofit2/OkHttpCall.java#OkHttpCall.createRawCall"},
			"an unqualified call to a private method of the same class", false},
	}
	for _, lang := range StructuralLanguages() {
		testenv.MustHaveData(t, DocCorporaFile(lang))
	}
	dir, _ := testenv.DataDir()
	for _, tc := range tests {
		cfg := DefaultConfig()
		cfg.Repos = []string{tc.repo}
		if tc.anyDecoy {
			cfg.Generator.DecoyOverlap = 0
		}
		ds, err := DocStructural(dir, tc.lang, datasets.SplitAll, cfg)
		require.NoError(t, err)
		if d := cmp.Diff(tc.want, goldIDs(ds, tc.id)); d != "" {
			t.Errorf("%s (%s): callees (-want +got):\n%s", tc.id, tc.why, d)
		}
		doc, err := DocComment(dir, tc.lang, datasets.SplitAll, cfg)
		require.NoError(t, err)
		for _, tk := range ds.Tasks {
			// Same query, same indexed files as the doc task.
			i := slices.IndexFunc(doc.Tasks, func(d datasets.Task) bool { return d.ID == tk.ID })
			if i < 0 || doc.Tasks[i].Query != tk.Query {
				t.Errorf("%s: not the doc task's query", tk.ID)
			}
			c := ds.Corpora[tk.CorpusID]
			for _, g := range tk.Gold {
				p, _, _ := strings.Cut(g.ID, "#")
				if !strings.Contains(c.Docs[c.Lookup()[p]].Text, g.Body) {
					t.Errorf("%s: gold %s not in its file", tk.ID, g.ID)
				}
			}
		}
	}
}

// TestDocStructuralSplits: a structural split holds the doc split's seeds
// that have callees, and a repository generated alone gives its tasks of
// the whole run (what the small size relies on).
func TestDocStructuralSplits(t *testing.T) {
	testenv.MustHaveData(t, DocCorporaFile("java"))
	dir, _ := testenv.DataDir()
	cfg := DefaultConfig()
	cfg.Repos = []string{"square/retrofit", "apache/flink-ml"}
	for _, split := range []string{datasets.SplitDev, datasets.SplitTest} {
		doc, err := DocComment(dir, "java", split, cfg)
		require.NoError(t, err)
		st, err := DocStructural(dir, "java", split, cfg)
		require.NoError(t, err)
		all, err := DocStructural(dir, "java", datasets.SplitAll, cfg)
		require.NoError(t, err)
		in := map[string]bool{}
		for _, tk := range doc.Tasks {
			in[tk.ID] = true
		}
		var want []string
		for _, tk := range all.Tasks {
			if in[tk.ID] {
				want = append(want, tk.ID)
			}
		}
		var got []string
		for _, tk := range st.Tasks {
			got = append(got, tk.ID)
		}
		if len(want) == 0 {
			t.Fatalf("%s: no structural task in the doc split", split)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s: structural tasks (-doc split's seeds with callees +got):\n%s", split, d)
		}
		// The split's seeds without a callee are its Dropped, and no others.
		if n := len(st.Tasks) + len(st.Dropped); n != len(doc.Tasks) {
			t.Errorf("%s: %d tasks + %d dropped, want the doc split's %d seeds", split, len(st.Tasks), len(st.Dropped), len(doc.Tasks))
		}
		for _, d := range st.Dropped {
			if !in[d.ID] {
				t.Errorf("%s: dropped %s is not a seed of the doc split", split, d.ID)
			}
		}
		one := cfg
		one.Repos = []string{"apache/flink-ml"}
		alone, err := DocStructural(dir, "java", split, one)
		require.NoError(t, err)
		for _, tk := range alone.Tasks {
			if !slices.Contains(got, tk.ID) {
				t.Errorf("%s: %s generated alone is not in the two-repository run", split, tk.ID)
			}
		}
	}
}
