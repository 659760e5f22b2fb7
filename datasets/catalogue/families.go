package catalogue

import (
	"path/filepath"

	"github.com/retrievalbench/retrievalbench/chunk"
	"github.com/retrievalbench/retrievalbench/datasets"
	"github.com/retrievalbench/retrievalbench/datasets/beir"
	"github.com/retrievalbench/retrievalbench/datasets/cases"
	"github.com/retrievalbench/retrievalbench/datasets/coderag"
	"github.com/retrievalbench/retrievalbench/datasets/cosqa"
	"github.com/retrievalbench/retrievalbench/datasets/repoqa"
	"github.com/retrievalbench/retrievalbench/datasets/sweqa"
	"github.com/retrievalbench/retrievalbench/datasets/trec"
)

// Families returns every benchmark family, in the order the repository's
// bench package runs them. Each call builds fresh values.
func Families() []Family {
	return []Family{RepoQA(), RepoQALangs(), SWEQA(), CodeRAG(), CoSQA(), TREC(), BEIR(), Cases()}
}

// RepoQA is the "search needle function" family: the hermetic fixture,
// tasks generated from docstrings of the data pack's ten Python
// repositories, the 20 official RepoQA descriptions, and the seed's
// structural split (gold = a 1-hop call-graph neighbour of the described
// function). Heavy configs run on it at -size=small.
func RepoQA() Family {
	cfg := repoqa.DefaultConfig()
	fx := FixturesDir()
	// The three smallest of the ten repositories (about 1,200 chunks in all),
	// so that every system, dense models included, runs in CI.
	small := []string{"marshmallow-code/marshmallow", "reactive-python/reactpy", "psf/black"}
	return Family{Name: "repoqa", HeavyAtSmall: true, Datasets: []Dataset{
		{Name: "fixture", Hermetic: true, Load: func(_, split string) (*datasets.Dataset, error) {
			return repoqa.Fixture(filepath.Join(fx, "repoqa", "repoqa-fixture.json"), split, cfg)
		}},
		{Name: "docstring", Load: func(dir, split string) (*datasets.Dataset, error) {
			return repoqa.PythonDocstring(dir, split, cfg)
		}, Small: small},
		// The 20 official-description rows are few: every size but small
		// runs them whole.
		{Name: "official-desc", Load: func(dir, _ string) (*datasets.Dataset, error) {
			return repoqa.PythonOfficialDesc(dir, "all", cfg)
		}, Small: small[1:]}, // marshmallow has no official-description row
		{Name: "structural", Load: func(dir, _ string) (*datasets.Dataset, error) {
			return repoqa.Structural(dir, "all", cfg)
		}, Small: small[1:]},
	}}
}

// RepoQALangs is documentation → definition retrieval in RepoQA's five
// other languages (datasets/repoqa.DocComment: a doc comment's summary →
// its function, the comment removed from the index; NOT the official
// RepoQA descriptions), one dataset per language ("go-doc", …), Go's
// with its leading name masked ("go-doc-masked"), and a structural split
// for Go and Java ("go-structural": the same queries,
// gold = the described function's 1-hop callees;
// datasets/repoqa.DocStructural).
//
// -size=small runs each language's test tasks in its smallest repository
// with tasks (a few hundred KB of source each), under the rules of every
// family: the light configs run there, heavy ones with -heavy (the family
// does not set HeavyAtSmall). The peers run where they read the language
// (pydocs-mcp: rust-doc, typescript-doc) and skip the rest as unsupported,
// with the reason (their configs' "unsupported" lists; docs/peers.md).
func RepoQALangs() Family {
	cfg := repoqa.DefaultConfig()
	small := map[string][]string{
		"cpp":        {"skypjack/uvw"},
		"go":         {"nsqio/nsq", "schollz/croc"},
		"java":       {"square/retrofit"},
		"rust":       {"tokio-rs/tracing"},
		"typescript": {"axios/axios"},
	}
	f := Family{Name: "repoqa-langs"}
	for _, lang := range repoqa.DocLanguages() {
		f.Datasets = append(f.Datasets, Dataset{Name: lang + "-doc", Load: func(dir, split string) (*datasets.Dataset, error) {
			return repoqa.DocComment(dir, lang, split, cfg)
		}, Small: small[lang], LoadSmallCorpora: func(dir, split string) (*datasets.Dataset, error) {
			c := cfg
			c.Repos = small[lang]
			return repoqa.DocComment(dir, lang, split, c)
		}, Chunking: langsChunking})
	}
	// Go's doc comments start with the function's name by convention: the
	// masked variant (the leading name replaced) asks Go like the others.
	for _, lang := range repoqa.MaskedLanguages() {
		mc := cfg
		mc.Generator.MaskLeadingName = true
		f.Datasets = append(f.Datasets, Dataset{Name: lang + "-doc-masked", Load: func(dir, split string) (*datasets.Dataset, error) {
			return repoqa.DocComment(dir, lang, split, mc)
		}, Small: small[lang], LoadSmallCorpora: func(dir, split string) (*datasets.Dataset, error) {
			c := mc
			c.Repos = small[lang]
			return repoqa.DocComment(dir, lang, split, c)
		}, Chunking: langsChunking})
	}
	// The structural splits' seeds are the doc tasks with a resolved
	// callee, fewer per repository: their small size takes three small
	// repositories per language.
	smallStructural := map[string][]string{
		"go":   {"nsqio/nsq", "schollz/croc", "iawia002/lux"},
		"java": {"square/retrofit", "Password4j/password4j", "apache/flink-ml"},
	}
	for _, lang := range repoqa.StructuralLanguages() {
		f.Datasets = append(f.Datasets, Dataset{Name: lang + "-structural", Load: func(dir, split string) (*datasets.Dataset, error) {
			return repoqa.DocStructural(dir, lang, split, cfg)
		}, Small: smallStructural[lang], LoadSmallCorpora: func(dir, split string) (*datasets.Dataset, error) {
			c := cfg
			c.Repos = smallStructural[lang]
			return repoqa.DocStructural(dir, lang, split, c)
		}, Chunking: langsChunking})
	}
	return f
}

// langsMaxChunkBytes is the size past which repoqa-langs cuts a module,
// class or file chunk (langsChunking).
const langsMaxChunkBytes = chunk.DefaultMaxChunkBytes

// langsChunking is repoqa-langs' chunking: chunk.DefaultOptions, and any
// module, class or file chunk over langsMaxChunkBytes cut into parts,
// never a function (KeepFunctions): a definition the parser did not make a
// chunk of its own is then found in a part of its module, not only in a
// module chunk of hundreds of KB (issue 41). No line limit: a long
// class or module under the byte limit stays whole, as before.
func langsChunking(string) chunk.Options {
	o := chunk.DefaultOptions()
	o.MaxChunkBytes = langsMaxChunkBytes
	o.KeepFunctions = true
	return o
}

// SWEQA is SWE-QA (file-level pseudo-qrels extracted from the answers'
// citations) and the seed harness's SWE-QA and SWE-QA-Pro fixtures.
func SWEQA() Family {
	load := func(repos ...string) Loader {
		return func(dir, split string) (*datasets.Dataset, error) {
			cfg := sweqa.DefaultConfig()
			cfg.Repos, cfg.Split = repos, split
			return sweqa.Load(dir, cfg)
		}
	}
	seed := func(questions string) Loader {
		return func(dir, _ string) (*datasets.Dataset, error) {
			return sweqa.LoadSeed(filepath.Join(dir, "pydocs-eval", questions), filepath.Join(dir, "pydocs-eval", "swe_qa_corpus.jsonl"))
		}
	}
	return Family{Name: "sweqa", Datasets: []Dataset{
		// The two smallest corpora (requests, flask) make the small size.
		{Name: "sweqa", Load: load(), Small: []string{"psf/requests", "pallets/flask"}},
		{Name: "seed-mini", Load: seed("swe_qa_mini.jsonl")},
		{Name: "seed-pro", Load: seed("swe_qa_pro_mini.jsonl")},
	}}
}

// CodeRAG is CodeRAG-Bench's HumanEval, MBPP, ODEX and DS-1000 as its
// builders frame them, DS-1000 in its three runs (ranked, composite,
// oracle), and the seed harness's DS-1000 fixture. Their corpora are small
// (≤ 500 docs), so every size runs them whole; -size=small takes small_test.
func CodeRAG() Family {
	load := func(name, run string) Loader {
		return func(dir, split string) (*datasets.Dataset, error) {
			cfg := coderag.DefaultConfig()
			cfg.Run, cfg.Split = run, split
			return coderag.Load(dir, name, cfg)
		}
	}
	return Family{Name: "coderag", Datasets: []Dataset{
		{Name: "humaneval", Load: load(coderag.HumanEval, coderag.Ranked)},
		{Name: "mbpp", Load: load(coderag.MBPP, coderag.Ranked)},
		{Name: "odex", Load: load(coderag.ODEX, coderag.Ranked)},
		{Name: "ds1000-ranked", Load: load(coderag.DS1000, coderag.Ranked)},
		{Name: "ds1000-composite", Load: load(coderag.DS1000, coderag.Composite)},
		{Name: "ds1000-oracle", Load: load(coderag.DS1000, coderag.Oracle)},
		{Name: "seed-ds1000", Load: func(dir, _ string) (*datasets.Dataset, error) {
			return coderag.LoadSeedDS1000(filepath.Join(dir, "pydocs-eval", "ds1000_50.json"), coderag.DefaultConfig())
		}},
	}}
}

// CoSQA is CoSQA's retrieval split: web queries over a 6,267-function code
// base. -size=small searches the small_test queries among the 500 test
// queries' gold functions.
func CoSQA() Family {
	return Family{Name: "cosqa", Datasets: []Dataset{{Name: "cosqa", Pool: true, Load: func(dir, split string) (*datasets.Dataset, error) {
		cfg := cosqa.DefaultConfig()
		cfg.Split = split
		return cosqa.Load(dir, cfg)
	}}}}
}

// TREC is classic TREC collections: the hermetic fixture and Vaswani (NPL).
// -size=small searches Vaswani's small_test topics among its judged
// documents.
func TREC() Family {
	fx := filepath.Join(FixturesDir(), "trec")
	return Family{Name: "trec", Datasets: []Dataset{
		{Name: "fixture", Hermetic: true, Load: func(_, split string) (*datasets.Dataset, error) {
			cfg := trec.DefaultConfig()
			cfg.Split = split
			return trec.LoadFiles(trec.Files{Name: "trec-fixture", Docs: []string{filepath.Join(fx, "docs.trec")}, Topics: filepath.Join(fx, "topics.trec"), Qrels: filepath.Join(fx, "qrels")}, cfg)
		}},
		{Name: "vaswani", Pool: true, Load: func(dir, split string) (*datasets.Dataset, error) {
			cfg := trec.DefaultConfig()
			cfg.Split = split
			return trec.Load(dir, "vaswani", cfg)
		}},
	}}
}

// BEIR is a BEIR folder: the hermetic fixture.
func BEIR() Family {
	return Family{Name: "beir", Datasets: []Dataset{{Name: "fixture", Hermetic: true, Load: func(_, split string) (*datasets.Dataset, error) {
		cfg := beir.DefaultConfig()
		cfg.Split = split
		return beir.Load(filepath.Join(FixturesDir(), "beir"), cfg)
	}}}}
}

// Cases is hand-written case files (intent taxonomy, graded relevance): the
// hermetic fixture over two tiny repositories, and the model campaign's
// case file over requests and flask (fixtures/campaign; the repositories
// come from the data pack).
func Cases() Family {
	fx := filepath.Join(FixturesDir(), "cases")
	camp := filepath.Join(FixturesDir(), "campaign")
	return Family{Name: "cases", Datasets: []Dataset{
		{Name: "fixture", Hermetic: true, Load: func(_, split string) (*datasets.Dataset, error) {
			cfg := cases.DefaultConfig()
			cfg.Split = split
			return cases.Load(filepath.Join(fx, "cases.jsonl"), filepath.Join(fx, "manifest.json"), cfg)
		}},
		{Name: "campaign", Load: func(dir, split string) (*datasets.Dataset, error) {
			cfg := cases.DefaultConfig()
			cfg.Split, cfg.Name = split, "cases-campaign"
			return cases.Load(filepath.Join(camp, "cases.jsonl"), filepath.Join(camp, "repos.json"), cfg)
		}},
	}}
}
