package repoqa

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/datasets"
	"github.com/retrievalbench/retrievalbench/internal/testenv"
)

// TestDocCommentRealSnippets checks the generator's reading of one real
// definition per language, copied from the data pack's corpora (checked by
// hand): the comment found, its summary, the definition's qualified name,
// and that the candidate passes the filters.
func TestDocCommentRealSnippets(t *testing.T) {
	tests := []struct {
		name, lang, path, src string
		def                   string // qualified name of the definition
		summary               string
		reason                string
	}{
		{"go/method", "go", "src/chunklist.go", `package fzf

// CountItems returns the total number of Items
func CountItems(cs []*Chunk) int {
	return 0
}

// Push adds the item to the list
func (cl *ChunkList) Push(data []byte) bool {
	cl.mutex.Lock()

	if len(cl.chunks) == 0 || cl.lastChunk().IsFull() {
		cl.chunks = append(cl.chunks, &Chunk{})
	}

	ret := cl.lastChunk().push(cl.trans, data)
	cl.mutex.Unlock()
	return ret
}
`, "ChunkList.Push", "Push adds the item to the list", "junegunn/fzf: a pointer-receiver method is Recv.Method; a Go doc comment keeps its leading name"},
		{"java/javadoc", "java", "gson/src/main/java/com/google/gson/internal/Streams.java", `package com.google.gson.internal;

/** Reads and writes GSON parse trees over streams. */
public final class Streams {
  /** Takes a reader in any state and returns the next value as a {@link JsonElement}. */
  public static JsonElement parse(JsonReader reader) throws JsonParseException {
    boolean isEmpty = true;
    try {
      JsonToken unused = reader.peek();
      isEmpty = false;
      return TypeAdapters.JSON_ELEMENT.read(reader);
    } catch (EOFException e) {
      if (isEmpty) {
        return JsonNull.INSTANCE;
      }
      throw new JsonSyntaxException(e);
    }
  }
}
`, "Streams.parse", "Takes a reader in any state and returns the next value as a JsonElement.", "google/gson: a one-line Javadoc, {@link x} → x"},
		{"rust/attribute", "rust", "helix-core/src/graphemes.rs", `/// Returns whether the given byte position is a grapheme boundary.
#[must_use]
pub fn is_grapheme_boundary_byte(slice: RopeSlice, byte_idx: usize) -> bool {
    // Bounds check
    debug_assert!(byte_idx <= slice.len_bytes());

    // Get the chunk with our byte index in it.
    let (chunk, chunk_byte_idx, _, _) = slice.chunk_at_byte(byte_idx);

    // Set up the grapheme cursor.
    let mut gc = GraphemeCursor::new(byte_idx, slice.len_bytes(), true);

    // Determine if the given position is a grapheme cluster boundary.
    loop {
        match gc.is_boundary(chunk, chunk_byte_idx) {
            Ok(n) => return n,
            Err(GraphemeIncomplete::PreContext(n)) => {
                let (ctx_chunk, ctx_byte_start, _, _) = slice.chunk_at_byte(n - 1);
                gc.provide_context(ctx_chunk, ctx_byte_start);
            }
            Err(_) => unreachable!(),
        }
    }
}
`, "is_grapheme_boundary_byte", "Returns whether the given byte position is a grapheme boundary.", "helix: /// above an attribute line (an is_ name long enough not to be an accessor)"},
		{"rust/generic-impl", "rust", "src/layout.rs", `pub struct Wrap<'a, T>(&'a T);

impl<'a, T: Clone> Wrap<'a, T> {
    /// Returns a copy of the wrapped value, cloned once
    /// and handed to the caller.
    ///
    /// # Examples
    pub fn cloned(&self) -> T {
        let a = self.0;
        let b = a.clone();
        let c = b;
        let d = c;
        d
    }
}
`, "Wrap.cloned", "Returns a copy of the wrapped value, cloned once and handed to the caller.", "a generic impl scopes its methods by the bare type (Wrap::cloned); a Markdown heading ends the summary"},
		{"typescript/export-default-js", "typescript", "lib/core/settle.js", `'use strict';

import AxiosError from './AxiosError.js';

/**
 * Resolve or reject a Promise based on response status.
 *
 * @param {Function} resolve A function that resolves the promise.
 * @param {Function} reject A function that rejects the promise.
 * @param {object} response The response.
 *
 * @returns {object} The response.
 */
export default function settle(resolve, reject, response) {
  const validateStatus = response.config.validateStatus;
  if (!response.status || !validateStatus || validateStatus(response.status)) {
    resolve(response);
  } else {
    reject(new AxiosError(
      'Request failed with status code ' + response.status,
      response.config,
      response
    ));
  }
}
`, "settle", "Resolve or reject a Promise based on response status.", "axios (.js counted as TypeScript by RepoQA): export default function, JSDoc tags end the summary"},
		{"typescript/date-fns-summary", "typescript", "src/startOfHour/index.ts", `/**
 * @name startOfHour
 * @category Hour Helpers
 * @summary Return the start of an hour for the given date.
 *
 * @description
 * Return the start of an hour for the given date.
 * The result will be in the local timezone.
 */
export function startOfHour<DateType extends Date>(
  date: DateType | number | string,
): DateType {
  const _date = toDate(date);
  _date.setMinutes(0, 0, 0);
  return _date;
}
`, "startOfHour", "Return the start of an hour for the given date.", "date-fns: the @summary tag after @name and @category"},
		{"cpp/out-of-class", "cpp", "src/core/condition-variable.cc", `namespace seastar {

/// Notify variable and wake up all waiter
void condition_variable::broadcast() noexcept {
    auto tmp(std::move(_waiters));
    while (!tmp.empty()) {
        auto& w = tmp.front();
        tmp.pop_front();
        if (_ex) {
            w.set_exception(_ex);
        } else {
            w.signal();
        }
    }
}

}
`, "seastar.condition_variable.broadcast", "Notify variable and wake up all waiter", "seastar: /// above an out-of-class member definition in a namespace"},
		{"cpp/template-doxygen", "cpp", "mlx/utils.h", `namespace mlx::core {

/**
 * \brief Returns the shape dimension if it's within allowed range.
 * \param dim the dimension
 */
template <typename T>
inline int check_shape_dim(const T dim) {
  constexpr bool is_signed = std::numeric_limits<T>::is_signed;
  using U = std::conditional_t<is_signed, ssize_t, size_t>;
  constexpr U min = static_cast<U>(std::numeric_limits<int>::min());
  constexpr U max = static_cast<U>(std::numeric_limits<int>::max());
  if ((is_signed && dim < min) || dim > max) {
    throw std::invalid_argument("Shape dimension falls outside supported int range.");
  }
  return static_cast<int>(dim);
}

}
`, "mlx.core.check_shape_dim", "Returns the shape dimension if it's within allowed range.", "mlx: a template head between the comment and the function; \\brief removed, \\param ends the summary"},
	}
	cfg := DefaultGeneratorConfig()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			defs, err := parseDefinitions(tc.lang, tc.path, []byte(tc.src))
			require.NoError(t, err)
			var found []string
			for _, d := range defs {
				found = append(found, d.Qualified)
				if d.Qualified != tc.def {
					continue
				}
				s, e, ok := docComment(tc.lang, tc.src, d.StartByte)
				require.True(t, ok, "%s: no doc comment found above %s", tc.reason, tc.def)
				sum, ok := docEligible(tc.lang, tc.src, d, s, e, cfg)
				require.True(t, ok, "%s: %s not eligible (summary %q)", tc.reason, tc.def, docSummary(tc.lang, tc.src[s:e], cfg.MaxSummaryWords))
				if sum != tc.summary {
					t.Errorf("%s: summary %q, want %q", tc.reason, sum, tc.summary)
				}
				removed := tc.src[:s] + tc.src[e:]
				if strings.Contains(collapse(removed), strings.Fields(tc.summary)[1]+" "+strings.Fields(tc.summary)[2]) &&
					strings.Contains(collapse(removed), tc.summary) {
					t.Errorf("%s: summary still in the file after removing the comment", tc.reason)
				}
				return
			}
			t.Fatalf("%s: no definition %s; found %v", tc.reason, tc.def, found)
		})
	}
}

func TestDocCommentExclusions(t *testing.T) {
	tests := []struct {
		lang, path, text string
		want             bool
		reason           string
	}{
		{"go", "pkg/a_test.go", "package a", true, "Go test file"},
		{"go", "pkg/zz_generated.go", "// Code generated by protoc-gen-go. DO NOT EDIT.\npackage a", true, "generated Go file"},
		{"go", "vendor/x/y.go", "package y", true, "vendored"},
		{"go", "pkg/a.go", "package a", false, "ordinary file"},
		{"java", "src/main/java/a/FooTest.java", "class FooTest {}", true, "Java test class"},
		{"typescript", "src/index.d.ts", "export declare function f(): void;", true, "declaration file"},
		{"typescript", "src/a.spec.ts", "", true, "spec file"},
		{"typescript", "dist/a.min.js", "", true, "minified"},
		{"rust", "tests/it.rs", "", true, "Rust integration tests"},
		{"cpp", "src/libsass/src/ast.cpp", "", true, "node-sass's bundled LibSass"},
		{"cpp", "src/a_unittest.cc", "", true, "C++ unit test"},
	}
	for _, tc := range tests {
		if got := excludedFile(tc.lang, tc.path, tc.text); got != tc.want {
			t.Errorf("%s: excludedFile(%q) = %v, want %v", tc.reason, tc.path, got, tc.want)
		}
	}
}

func TestDocSummaryRejects(t *testing.T) {
	cfg := DefaultGeneratorConfig()
	body := "\n" + strings.Repeat("  x = x + 1;\n", 6) + "}\n"
	tests := []struct{ lang, src, reason string }{
		{"cpp", "// Copyright 2020 the authors, all rights reserved\nint f(int x) {" + body, "licence header"},
		{"cpp", "// TODO: make this faster than it is now\nint f(int x) {" + body, "a TODO note"},
		{"cpp", "// int y = compute(x, 2);\nint f(int x) {" + body, "commented-out code"},
		{"java", "class A {\n/** Returns the cached value of this. */\nint getValue() {" + body + "}", "a short accessor"},
		{"go", "package a\n// TestX checks that the thing works well\nfunc TestX(t *testing.T) {" + body, "a test function"},
		{"go", "package a\n/* F does a lot of useful things here */\nfunc F() {" + body, "Go block comments are not doc comments here"},
	}
	for _, tc := range tests {
		defs, err := parseDefinitions(tc.lang, "a."+tc.lang, []byte(tc.src))
		require.NoError(t, err)
		for _, d := range defs {
			if d.Kind == "class" {
				continue
			}
			if s, e, ok := docComment(tc.lang, tc.src, d.StartByte); ok {
				if sum, ok := docEligible(tc.lang, tc.src, d, s, e, cfg); ok {
					t.Errorf("%s: %s accepted with summary %q", tc.reason, d.Qualified, sum)
				}
			}
		}
	}
}

func TestDocCommentData(t *testing.T) {
	for _, lang := range DocLanguages() {
		t.Run(lang, func(t *testing.T) {
			testenv.MustHaveData(t, DocCorporaFile(lang))
			dir, _ := testenv.DataDir()
			a, err := DocComment(dir, lang, datasets.SplitAll, DefaultConfig())
			require.NoError(t, err)
			// Generating two repositories alone gives their tasks of the
			// whole run (what benchtest's LoadSmall relies on), and checks
			// that the generator is deterministic.
			repos := slices.Sorted(maps.Keys(a.Corpora))[:2]
			cfg := DefaultConfig()
			cfg.Repos = repos
			b, err := DocComment(dir, lang, datasets.SplitAll, cfg)
			require.NoError(t, err)
			var want []datasets.Task
			for _, tk := range a.Tasks {
				if slices.Contains(repos, tk.CorpusID) {
					want = append(want, tk)
				}
			}
			if d := cmp.Diff(want, b.Tasks); d != "" {
				t.Fatalf("tasks of %v generated alone differ (-whole run +alone):\n%s", repos, d)
			}
			perRepo := map[string]int{}
			ids := map[string]bool{}
			for _, tk := range a.Tasks {
				perRepo[tk.Meta.Repo]++
				if ids[tk.ID] {
					t.Errorf("duplicate task id %s", tk.ID)
				}
				ids[tk.ID] = true
				c := a.Corpora[tk.CorpusID]
				path, _, _ := strings.Cut(tk.Gold[0].ID, "#")
				doc := c.Docs[c.Lookup()[path]]
				if !strings.Contains(doc.Text, tk.Gold[0].Body) {
					t.Errorf("%s: gold body not in %s", tk.ID, path)
				}
				if strings.Contains(collapse(doc.Text), tk.Query) {
					t.Errorf("%s: query %q still in its file", tk.ID, tk.Query)
				}
			}
			t.Logf("%s: %d tasks; per repo %v", lang, len(a.Tasks), perRepo)
			if len(a.Tasks) < 50 {
				t.Errorf("%d tasks, want at least 50 (%s)", len(a.Tasks), fmt.Sprint(a.Notes))
			}
		})
	}
}
