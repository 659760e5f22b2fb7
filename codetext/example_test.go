package codetext_test

import (
	"fmt"

	"github.com/retrievalbench/retrievalbench/codetext"
)

func ExampleContains() {
	chunkText := `def area(r):
    # circle area
    return 3.14159 * r * r  # approximate
`
	needle := "def area(r):\n  return 3.14159*r*r"
	fmt.Println(codetext.Contains("python", chunkText, needle))
	fmt.Println(codetext.Contains("python", chunkText, "def area(r):\n  return 3.14*r*r"))
	fmt.Println(codetext.Tokens("go", `s := "a // b" // comment`))
	// Output:
	// true
	// false
	// [s : = "a // b"]
}
