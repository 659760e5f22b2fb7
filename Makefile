# retrievalbench — every build and test goes through here so the sqlite_fts5
# build tag is never forgotten.
export GOFLAGS := -tags=sqlite_fts5 -buildvcs=false
GO ?= go

.PHONY: build test lint
build:
	$(GO) build ./...

test:
	$(GO) tool gotestsum --junitfile out/junit.xml -- ./...

lint:
	$(GO) vet ./...
	@test -z "$$(gofmt -l .)" || (gofmt -l .; echo "gofmt needed"; exit 1)
