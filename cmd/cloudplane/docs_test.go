package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The docs a newcomer reads name every flag of serve and every command;
// these tests fail when the code and those pages part ways.
const (
	configurationDoc = "../../docs/configuration.md"
	operationsDoc    = "../../docs/operations.md"
)

// printedFlag is a flag as `cloudplane serve -h` prints it.
type printedFlag struct{ name, def string }

// printedServeFlags asks the real serve for its flags, as `cloudplane serve -h`
// does: parseFlags prints the flag set's defaults and serve returns
// flag.ErrHelp before it opens anything.
func printedServeFlags(t *testing.T) []printedFlag {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	printed := make(chan []byte)
	go func() { b, _ := io.ReadAll(r); printed <- b }()
	stdout := os.Stdout
	os.Stdout = w
	var direct bytes.Buffer
	err = serve(context.Background(), []string{"-h"}, &direct)
	os.Stdout = stdout
	_ = w.Close()
	help := append(<-printed, direct.Bytes()...)
	if !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("serve -h: %v, want flag.ErrHelp", err)
	}
	return parseDefaults(t, string(help))
}

var (
	flagLine    = regexp.MustCompile(`^  -([a-z0-9-]+)`)
	defaultNote = regexp.MustCompile(`\(default (.*)\)$`)
)

// parseDefaults reads flag.PrintDefaults' output: "  -name type" lines,
// each followed by its usage, which ends "(default X)" unless the default
// is the type's zero value.
func parseDefaults(t *testing.T, help string) []printedFlag {
	var flags []printedFlag
	for _, line := range strings.Split(help, "\n") {
		if m := flagLine.FindStringSubmatch(line); m != nil {
			flags = append(flags, printedFlag{name: m[1]})
			continue
		}
		m := defaultNote.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil || len(flags) == 0 {
			continue
		}
		def := m[1]
		if s, err := strconv.Unquote(def); err == nil {
			def = s
		}
		flags[len(flags)-1].def = def
	}
	if len(flags) < 10 {
		t.Fatalf("serve -h printed %d flags; has its help changed?\n%s", len(flags), help)
	}
	return flags
}

// docRows returns the rows of the Markdown tables in path, cells trimmed.
func docRows(t *testing.T, path string) [][]string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]string
	for _, line := range strings.Split(string(raw), "\n") {
		if !strings.HasPrefix(line, "|") {
			continue
		}
		// An escaped pipe (`a\|b`) is text, not a cell's end.
		line = strings.ReplaceAll(line, `\|`, "\x00")
		cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(strings.ReplaceAll(cells[i], "\x00", "|"))
		}
		rows = append(rows, cells)
	}
	return rows
}

var codeSpan = regexp.MustCompile("`([^`]*)`")

// TestConfigurationDocNamesEveryServeFlag fails when serve accepts a flag
// docs/configuration.md does not list (as "| `--name` | `CLOUDPLANE_NAME` |
// default | meaning |"), when that page lists a flag serve does not
// accept, or when its environment name or default is not the code's.
func TestConfigurationDocNamesEveryServeFlag(t *testing.T) {
	flags := printedServeFlags(t)
	documented := map[string][]string{}
	for _, row := range docRows(t, configurationDoc) {
		if m := codeSpan.FindStringSubmatch(row[0]); m != nil && strings.HasPrefix(m[1], "--") && len(row) >= 3 {
			documented[strings.TrimPrefix(m[1], "--")] = row
		}
	}
	for _, f := range flags {
		row, ok := documented[f.name]
		if !ok {
			t.Errorf("serve accepts --%s, but %s has no row for it", f.name, configurationDoc)
			continue
		}
		env := "CLOUDPLANE_" + strings.ToUpper(strings.ReplaceAll(f.name, "-", "_"))
		if row[1] != "`"+env+"`" {
			t.Errorf("--%s: environment cell %q, want `%s`", f.name, row[1], env)
		}
		if f.def != "" && !defaultShown(row[2], f.def) {
			t.Errorf("--%s: default cell %q does not show the default %q", f.name, row[2], f.def)
		}
	}
	for name := range documented {
		if !slices.ContainsFunc(flags, func(f printedFlag) bool { return f.name == name }) {
			t.Errorf("%s documents --%s, which serve does not accept", configurationDoc, name)
		}
	}
}

// defaultShown tells whether a default cell shows def in a code span; a
// duration may be written short (`24h` for 24h0m0s).
func defaultShown(cell, def string) bool {
	want, isDuration := time.ParseDuration(def)
	for _, m := range codeSpan.FindAllStringSubmatch(cell, -1) {
		if m[1] == def {
			return true
		}
		if got, err := time.ParseDuration(m[1]); err == nil && isDuration == nil && got == want {
			return true
		}
	}
	return false
}

// TestOperationsDocNamesEveryCommand fails when a command of the binary
// has no row in docs/operations.md's command table, or when a row, or any
// code in the README or docs/, names a `cloudplane` command that does not
// exist.
func TestOperationsDocNamesEveryCommand(t *testing.T) {
	rowed := map[string]bool{}
	for _, row := range docRows(t, operationsDoc) {
		if m := codeSpan.FindStringSubmatch(row[0]); m != nil {
			if name, ok := commandNamed(m[1]); ok {
				rowed[name] = true
			}
		}
	}
	for name := range commands {
		if !rowed[name] {
			t.Errorf("command %q has no row in %s", name, operationsDoc)
		}
	}
	for name := range rowed {
		if _, ok := commands[name]; !ok {
			t.Errorf("%s has a row for %q, which is no command", operationsDoc, name)
		}
	}
	for _, doc := range markdownFiles(t) {
		raw, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, code := range codeIn(string(raw)) {
			for _, m := range cliCall.FindAllStringSubmatch(code, -1) {
				if name, ok := commandNamed("cloudplane " + m[1]); ok {
					if _, exists := commands[name]; !exists && name != "help" { // run answers help itself
						t.Errorf("%s names `cloudplane %s`, which is no command", doc, name)
					}
				}
			}
		}
	}
}

// cliCall finds a call of the binary in code: cloudplane, then its words.
var cliCall = regexp.MustCompile(`(?:^|[\s/])cloudplane ([a-z][a-z0-9 -]*)`) // reset-2fa has a digit

// commandNamed reads the command a call names ("cloudplane users create
// --email E" names "users create"). ok is false when s calls no command:
// it is not a call of cloudplane, or the word after it is a flag.
func commandNamed(s string) (name string, ok bool) {
	words := strings.Fields(s)
	if len(words) < 2 || words[0] != "cloudplane" || !regexp.MustCompile(`^[a-z]`).MatchString(words[1]) {
		return "", false
	}
	if _, single := commands[words[1]]; single || len(words) == 2 || strings.HasPrefix(words[2], "-") || strings.HasPrefix(words[2], "[") {
		return words[1], true
	}
	return words[1] + " " + words[2], true
}

// codeIn returns the code spans and fenced blocks of a Markdown document.
func codeIn(doc string) []string {
	var code []string
	for i, part := range strings.Split(doc, "```") {
		if i%2 == 1 {
			code = append(code, part)
			continue
		}
		for _, m := range codeSpan.FindAllStringSubmatch(part, -1) {
			code = append(code, m[1])
		}
	}
	return code
}

// markdownFiles are the README and every page of docs/.
func markdownFiles(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob("../../docs/*.md")
	if err != nil || len(docs) == 0 {
		t.Fatalf("no docs/*.md found: %v", err)
	}
	return append([]string{"../../README.md"}, docs...)
}

var (
	mdLink  = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	heading = regexp.MustCompile(`(?m)^#+ (.+)$`)
	unslug  = regexp.MustCompile(`[^a-z0-9 _-]`)
)

// TestDocLinksResolve fails when a relative link of the README or docs/
// points at a file that does not exist, or at a heading (#anchor, as
// GitHub spells it) that the Markdown file it names does not have.
func TestDocLinksResolve(t *testing.T) {
	for _, doc := range markdownFiles(t) {
		raw, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mdLink.FindAllStringSubmatch(string(raw), -1) {
			target, anchor, _ := strings.Cut(m[1], "#")
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path := doc
			if target != "" {
				path = filepath.Join(filepath.Dir(doc), target)
			}
			if _, err := os.Stat(path); err != nil {
				t.Errorf("%s links to %s, which does not exist", doc, m[1])
			} else if anchor != "" && !slices.Contains(anchors(t, path), anchor) {
				t.Errorf("%s links to %s, which has no heading #%s", doc, path, anchor)
			}
		}
	}
}

// anchors returns the GitHub anchors of a Markdown file's headings.
func anchors(t *testing.T, path string) []string {
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var slugs []string
	for _, m := range heading.FindAllStringSubmatch(string(raw), -1) {
		slug := unslug.ReplaceAllString(strings.ToLower(strings.TrimSpace(m[1])), "")
		slugs = append(slugs, strings.ReplaceAll(slug, " ", "-"))
	}
	return slugs
}
