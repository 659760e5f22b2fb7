package codetext

import "testing"

func TestLanguageOf(t *testing.T) {
	tests := []struct {
		path, want, reason string
	}{
		{"a/b.py", Python, "Python source"},
		{"main.go", Go, "Go source"},
		{"A.java", Java, "Java source"},
		{"x.ts", TypeScript, "TypeScript"},
		{"x.tsx", TypeScript, "TSX is TypeScript too"},
		{"x.mts", TypeScript, "an ES module TypeScript file"},
		{"x.cts", TypeScript, "a CommonJS TypeScript file"},
		{"x.pyi", Python, "a Python type stub"},
		{"lib.rs", Rust, "Rust source"},
		{"a.cc", Cpp, "C++ .cc"},
		{"a.CPP", Cpp, "extensions compare case-insensitively"},
		{"a.cxx", Cpp, "C++ .cxx"},
		{"a.h", Cpp, "headers parse as C++"},
		{"a.hpp", Cpp, "C++ header"},
		{"a.hh", Cpp, "C++ header"},
		{"x.js", "", "JavaScript is not one of the six languages"},
		{"Makefile", "", "no extension"},
		{"dir.py/file", "", "only the file's own extension counts"},
	}
	for _, tt := range tests {
		if got := LanguageOf(tt.path); got != tt.want {
			t.Errorf("LanguageOf(%q) = %q, want %q (%s)", tt.path, got, tt.want, tt.reason)
		}
	}
}
