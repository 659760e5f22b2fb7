package chunk

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/codetext"
	"github.com/retrievalbench/retrievalbench/corpus"
)

// TestSymbolsRealRepoQA checks the chunker's definitions and qualified
// names on snippets from the RepoQA corpora of the five other languages
// (issue 28; each checked by hand against the repository): the symbols are
// written as users of the language name them, with "." for every scope.
// The module piece (symbol "") holds the lines no definition owns;
// namespaces and modules scope their definitions without a chunk of their
// own.
func TestSymbolsRealRepoQA(t *testing.T) {
	tests := []struct {
		name, path, src string
		want            []string
		reason          string
	}{
		{"go/receivers-generics", "src/chunklist.go", `package fzf

type ChunkList struct {
	chunks []*Chunk
}

// Push adds the item to the list
func (cl *ChunkList) Push(data []byte) bool {
	return true
}

type Set[T comparable] map[T]struct{}

func (s Set[T]) Add(v T) {
	s[v] = struct{}{}
}

func Map[T, U any](xs []T, f func(T) U) []U {
	return nil
}
`, []string{"", "ChunkList", "ChunkList.Push", "Set", "Set.Add", "Map"}, "junegunn/fzf: pointer and generic receivers name the method Type.Method"},
		{"java/nested", "retrofit/src/main/java/retrofit2/Converter.java", `package retrofit2;

public interface Converter<F, T> {
  T convert(F value) throws IOException;

  abstract class Factory {
    public @Nullable Converter<ResponseBody, ?> responseBodyConverter(
        Type type, Annotation[] annotations, Retrofit retrofit) {
      return null;
    }

    protected static Class<?> getRawType(Type type) {
      return Utils.getRawType(type);
    }
  }
}
`, []string{"", "Converter", "Converter.Factory", "Converter.Factory.responseBodyConverter", "Converter.Factory.getRawType"}, "square/retrofit: a nested class in an interface"},
		{"rust/impl-blocks", "src/filters/cors.rs", `pub struct Builder {
    max_age: Option<u64>,
}

impl Builder {
    pub fn max_age(mut self, seconds: impl Seconds) -> Self {
        self.max_age = Some(seconds.seconds());
        self
    }
}

mod internal {
    pub trait Seconds {
        fn seconds(self) -> u64;
    }

    impl Seconds for u32 {
        fn seconds(self) -> u64 {
            self.into()
        }
    }
}
`, []string{"Builder", "Builder", "Builder.max_age", "", "internal.Seconds", "internal.u32", "internal.u32.seconds"}, "seanmonstar/warp: inherent and trait impls scope by the type, modules by their name"},
		{"cpp/namespaces-templates", "src/uvw/util.h", `namespace uvw {

namespace details {

template<typename T>
struct uv_type_wrapper {
    constexpr uv_type_wrapper(Type val) noexcept
        : value{val} {}

    constexpr bool operator==(Type other) const noexcept {
        return value == other;
    }
};

} // namespace details

template<typename T>
T handle<T>::data() const {
    return value;
}

}
`, []string{"", "uvw.details.uv_type_wrapper", "uvw.details.uv_type_wrapper.uv_type_wrapper", "uvw.details.uv_type_wrapper.operator==", "uvw.handle.data"}, "skypjack/uvw: nested namespaces, a class template's members, an out-of-class template member"},
		{"typescript/js-arrow-export-default", "lib/helpers/combineURLs.js", `'use strict';

/**
 * Creates a new URL by combining the specified URLs
 */
export default function combineURLs(baseURL, relativeURL) {
  return relativeURL
    ? baseURL.replace(/\/?\/$/, '') + '/' + relativeURL.replace(/^\/+/, '')
    : baseURL;
}

const isURLSameOrigin = (url) => {
  const parsed = new URL(url);
  return parsed.origin === window.location.origin;
};

class AxiosHeaders {
  set(header, valueOrRewrite) {
    return this;
  }
}
`, []string{"", "combineURLs", "isURLSameOrigin", "AxiosHeaders", "AxiosHeaders.set"}, "axios (.js parsed as TypeScript): export default function, an arrow function bound to a const, a class method"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lang := codetext.LanguageOf(tc.path)
			if lang == "" {
				lang = codetext.TypeScript // RepoQA's "typescript" corpora count .js files as TypeScript
			}
			c := &corpus.Corpus{ID: "x", Docs: []corpus.Doc{{ID: tc.path, Path: tc.path, Kind: "file", Language: lang, Text: tc.src}}}
			opt := DefaultOptions()
			opt.MinLines = 1
			out, st, err := Corpus(c, opt)
			require.NoError(t, err)
			require.Zero(t, st.Fallback, "%s: the file fell back to line windows", tc.reason)
			var got []string
			for _, d := range out.Docs {
				got = append(got, d.Symbol)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("%s (-want +got):\n%s", tc.reason, d)
			}
		})
	}
}
