// Command mcpgrep is a small MCP server (stdio, official Go SDK), written
// outside retrievalbench as a user's server would be: its "search" tool
// ranks the files of a directory by how many distinct query words each
// contains and answers with structured items {path, start_line, end_line,
// score}, the first line of the file where most query words meet.
//
//	mcpgrep DIR
package main

import (
	"context"
	"fmt"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type searchIn struct {
	Query string `json:"query"`
	Limit int    `json:"limit"`
}

type item struct {
	Path      string  `json:"path"`
	StartLine int     `json:"start_line"`
	EndLine   int     `json:"end_line"`
	Score     float64 `json:"score"`
}

type results struct {
	Items []item `json:"items"`
}

func words(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len(w) > 2 {
			m[w] = true
		}
	}
	return m
}

// search scores every file by its distinct query words and points at the
// 12-line window holding the most of them.
func search(dir, query string, k int) (results, error) {
	q := words(query)
	var out []item
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.Contains(p, "/.git/") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		lines := strings.Split(string(b), "\n")
		score := 0
		for w := range words(string(b)) {
			if q[w] {
				score++
			}
		}
		if score == 0 {
			return nil
		}
		const win = 12
		best, at := -1, 0
		for i := range lines {
			ws := words(strings.Join(lines[i:min(i+win, len(lines))], " "))
			n := 0
			for w := range ws {
				if q[w] {
					n++
				}
			}
			if n > best {
				best, at = n, i
			}
		}
		rel, _ := filepath.Rel(dir, p)
		out = append(out, item{Path: filepath.ToSlash(rel), StartLine: at + 1, EndLine: min(at+win, len(lines)), Score: float64(score)})
		return nil
	})
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].Path < out[j].Path
	})
	if len(out) > k {
		out = out[:k]
	}
	return results{Items: out}, err
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: mcpgrep DIR")
		os.Exit(2)
	}
	dir := os.Args[1]
	s := mcp.NewServer(&mcp.Implementation{Name: "mcpgrep", Version: "0.1.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "search", Description: "rank the files of the directory for a query"},
		func(ctx context.Context, _ *mcp.CallToolRequest, in searchIn) (*mcp.CallToolResult, results, error) {
			if in.Limit <= 0 {
				in.Limit = 10
			}
			r, err := search(dir, in.Query, in.Limit)
			return nil, r, err
		})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
