package main

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// The map of the code in docs/ARCHITECTURE.md and the Layout table of
// docs/development.md name every Go package; these tests fail when a
// package is added, moved or removed without them.
const (
	architectureDoc = "../../docs/ARCHITECTURE.md"
	developmentDoc  = "../../docs/development.md"
)

// layoutRoots are the top-level folders of the layout (.ci/layering keeps
// every package under one of them). A code span naming a path under one of
// them ("`webhooks/mail`", "`models/mail.go`") names a package or a file.
var layoutRoots = []string{"cmd", "handlers", "views", "models", "static", "webhooks", "scripts", "e2e"}

// folders are the paths the docs may name that hold no Go package of their
// own: a name not among the packages must be one of them.
var folders = []string{"scripts"}

// listedPackages is what `go list ./...` reports, relative to the module
// ("handlers/api"; "." for the module's root).
func listedPackages(t *testing.T) []string {
	t.Helper()
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}}", "./...")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list ./...: %v", err)
	}
	module, err := exec.Command("go", "list", "-m").Output()
	if err != nil {
		t.Fatalf("go list -m: %v", err)
	}
	prefix := strings.TrimSpace(string(module))
	var pkgs []string
	for _, p := range strings.Fields(string(out)) {
		if p == prefix {
			pkgs = append(pkgs, ".")
			continue
		}
		pkgs = append(pkgs, strings.TrimPrefix(p, prefix+"/"))
	}
	if len(pkgs) == 0 {
		t.Fatal("go list ./... reported no package")
	}
	return pkgs
}

// section is the text of doc from the heading "## title" to the next
// heading of that level.
func section(t *testing.T, path, title string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(raw), "\n## "+title+"\n")
	if !ok {
		t.Fatalf("%s has no heading %q", path, "## "+title)
	}
	body, _, _ := strings.Cut(rest, "\n## ")
	return body
}

// namedPaths are the code spans of text that name a path under a layout
// root: a package or folder ("models/database", "scripts") or a file
// ("models/mail.go").
func namedPaths(text string) []string {
	var named []string
	for _, code := range codeIn(text) {
		p := strings.TrimSuffix(code, "/")
		if strings.ContainsAny(p, " \n*()") {
			continue
		}
		root, _, _ := strings.Cut(p, "/")
		if slices.Contains(layoutRoots, root) && !slices.Contains(named, p) {
			named = append(named, p)
		}
	}
	return named
}

// layoutDrift compares the packages `go list` reports with the paths a doc
// names: missing are packages the doc does not name, unknown are named
// paths that are neither a package, a folder of folders, nor an existing
// file (exists says whether a file path exists).
func layoutDrift(pkgs, named []string, exists func(string) bool) (missing, unknown []string) {
	for _, p := range pkgs {
		if !slices.Contains(named, p) {
			missing = append(missing, p)
		}
	}
	for _, n := range named {
		switch {
		case slices.Contains(pkgs, n), slices.Contains(folders, n):
		case strings.Contains(n, ".") && exists(n):
		default:
			unknown = append(unknown, n)
		}
	}
	return missing, unknown
}

func fileExists(rel string) bool {
	info, err := os.Stat("../../" + rel)
	return err == nil && !info.IsDir()
}

func checkLayoutDoc(t *testing.T, doc, where string, named []string) {
	t.Helper()
	missing, unknown := layoutDrift(listedPackages(t), named, fileExists)
	for _, p := range missing {
		t.Errorf("go list ./... reports %s, which %s of %s does not name", p, where, strings.TrimPrefix(doc, "../../"))
	}
	for _, n := range unknown {
		t.Errorf("%s of %s names %s, which is no package, folder or file", where, strings.TrimPrefix(doc, "../../"), n)
	}
}

// TestArchitectureCodeMapNamesEveryPackage fails when a package is missing
// from the code map of docs/ARCHITECTURE.md, or when the code map names a
// package or file that does not exist.
func TestArchitectureCodeMapNamesEveryPackage(t *testing.T) {
	checkLayoutDoc(t, architectureDoc, "the code map", namedPaths(section(t, architectureDoc, "Code map")))
}

// TestDevelopmentLayoutNamesEveryPackage does the same for the Layout table
// of docs/development.md: its first column names every package.
func TestDevelopmentLayoutNamesEveryPackage(t *testing.T) {
	var first []string
	for _, line := range strings.Split(section(t, developmentDoc, "Layout"), "\n") {
		if cells := strings.Split(strings.Trim(line, "| "), "|"); strings.HasPrefix(line, "|") && len(cells) > 1 {
			first = append(first, cells[0])
		}
	}
	checkLayoutDoc(t, developmentDoc, "the Layout table", namedPaths(strings.Join(first, "\n")))
}

// TestLayoutDriftFailsBothWays shows that the comparison catches both
// kinds of drift: a package the doc leaves out, and a name in the doc
// that is no package (a moved one), no folder and no file.
func TestLayoutDriftFailsBothWays(t *testing.T) {
	pkgs := []string{"models", "models/database", "webhooks/mail"}
	noFile := func(string) bool { return false }
	missing, unknown := layoutDrift(pkgs, []string{"models", "models/database", "webhooks/mail", "scripts"}, noFile)
	if len(missing) != 0 || len(unknown) != 0 {
		t.Errorf("a doc naming every package: missing %v, unknown %v; want none", missing, unknown)
	}
	missing, _ = layoutDrift(pkgs, []string{"models", "models/database"}, noFile)
	if !slices.Equal(missing, []string{"webhooks/mail"}) {
		t.Errorf("a doc without webhooks/mail: missing %v, want [webhooks/mail]", missing)
	}
	_, unknown = layoutDrift(pkgs, []string{"models", "models/database", "webhooks/mail", "models/storage", "models/gone.go"}, noFile)
	if !slices.Equal(unknown, []string{"models/storage", "models/gone.go"}) {
		t.Errorf("a doc naming a moved package and a deleted file: unknown %v, want [models/storage models/gone.go]", unknown)
	}
	got := namedPaths("The `models/database` engine, `handlers/api/` and `scripts`; not `go list ./...`, `respond` or `migrations/`.")
	if want := []string{"models/database", "handlers/api", "scripts"}; !slices.Equal(got, want) {
		t.Errorf("namedPaths = %v, want %v", got, want)
	}
}
