package static

import (
	"os"
	"regexp"
	"testing"
)

// A stylesheet with an unclosed block loses every rule after it without
// a word from the browser (a merge once left one open and the tables'
// truncation silently stopped working), so the braces must balance.
func TestStylesheetBlocksAreClosed(t *testing.T) {
	css, err := os.ReadFile("app.css")
	if err != nil {
		t.Fatal(err)
	}
	text := regexp.MustCompile(`(?s)/\*.*?\*/`).ReplaceAll(css, nil)
	depth, line := 0, 1
	for _, c := range text {
		switch c {
		case '\n':
			line++
		case '{':
			depth++
		case '}':
			if depth--; depth < 0 {
				t.Fatalf("app.css closes a block it never opened, near line %d (comments removed)", line)
			}
		}
	}
	if depth != 0 {
		t.Fatalf("app.css leaves %d block(s) open", depth)
	}
}
