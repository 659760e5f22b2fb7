# retrievalbench — every build, test and benchmark goes through here, so the
# sqlite_fts5 build tag (FTS5 in mattn/go-sqlite3) is never forgotten.
#
#   make setup       fetch ONNX Runtime and the embedding models (idempotent, sha256-checked)
#   make test        the whole test suite, golden quality gate included (JUnit XML in out/)
#   make lint        go vet + gofmt check
#   make bench       latency + quality benchmarks → results/bench-<commit>.txt
#   make compare OLD=a.txt NEW=b.txt   benchstat table
#   make gate    OLD=a.txt NEW=b.txt   exit 1 on a significant regression
#   make bench-full  every dataset at full size (slow; not in CI)
#   make campaign    embedding-model campaign on fixtures/campaign (pooled grading, decision)
#   make peers       install the external peers (pydocs-mcp, Codira, Context7) pinned under the cache (idempotent)

export GOFLAGS := -tags=sqlite_fts5 -buildvcs=false
# A failing go test piped into tee must fail the target.
SHELL := bash
.SHELLFLAGS := -o pipefail -ec
GO      ?= go
COUNT   ?= 6
INDEX_COUNT ?= 1
EMBED_INDEX := /system=(dense|hybrid|graph)///op=index
BENCH   ?= .
COMMIT  := $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
RESULTS ?= results
RB      := $(GO) run ./cmd/retrievalbench

MODELS  ?= minilm-l6-q,bge-small-q,e5-small-q

.PHONY: build setup peers test test-short lint bench bench-full compare gate data campaign report-results clean

build:
	$(GO) build ./...

setup:
	$(RB) models fetch

# Needs the models of setup (pydocs-mcp's offline model folder is built from
# bge-small-q). A missing interpreter skips that peer with a loud line.
peers: setup
	bash peers/install.sh $(PEERS)

test: setup
	@mkdir -p out
	$(GO) tool gotestsum --junitfile out/junit.xml --format testname -- -timeout 60m ./...

test-short:
	$(GO) test -short ./...

lint:
	$(GO) vet ./...
	@test -z "$$(gofmt -l .)" || (echo "gofmt needed:"; gofmt -l .; exit 1)

# Building an embedding index (dense, hybrid, graph) takes minutes per model,
# so those op=index benchmarks run INDEX_COUNT times (1: reported by the gate
# as too few runs, never a regression); everything else runs COUNT times.
# BENCH must be a family-level regex (the index pattern is appended to it).
bench: setup
	@mkdir -p $(RESULTS)
	{ echo "commit: $(COMMIT)"; echo "machine: $$(uname -srm) $$(nproc) cores"; \
	  $(GO) test ./bench -run '^$$' -bench '$(BENCH)' -skip '$(EMBED_INDEX)' -count $(COUNT) -timeout 120m && \
	  $(GO) test ./bench -run '^$$' -bench '$(BENCH)$(EMBED_INDEX)' -benchtime 1x -count $(INDEX_COUNT) -timeout 120m; \
	} | tee $(RESULTS)/bench-$(COMMIT).txt.tmp && mv $(RESULTS)/bench-$(COMMIT).txt.tmp $(RESULTS)/bench-$(COMMIT).txt

bench-full: setup
	@mkdir -p $(RESULTS)
	$(GO) test ./bench -size=full -timeout 300m -v -results $(RESULTS)/full-$(COMMIT) 2>&1 | tee $(RESULTS)/full-$(COMMIT).log

compare:
	@test -n "$(OLD)" -a -n "$(NEW)" || (echo "usage: make compare OLD=old.txt NEW=new.txt"; exit 2)
	$(GO) tool benchstat -ignore commit $(OLD) $(NEW)

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

clean:
	rm -rf out $(RESULTS)
