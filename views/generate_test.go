package views_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The committed *_templ.go files must be what the pinned templ generates
// from the committed *.templ files: CI builds from the generated code.
func TestGeneratedCodeIsFresh(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the templ generator")
	}
	sources, err := filepath.Glob("*.templ")
	if err != nil || len(sources) == 0 {
		t.Fatalf("no templ sources: %v", err)
	}
	// Error positions in the generated code name views/<file>, as when
	// generating from the module root.
	root := t.TempDir()
	dir := filepath.Join(root, "views")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, src := range sources {
		copyFile(t, src, filepath.Join(dir, src))
	}
	cmd := exec.Command("go", "tool", "templ", "generate", "-path", root)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("templ generate: %v\n%s", err, out)
	}
	for _, src := range sources {
		gen := src[:len(src)-len(".templ")] + "_templ.go"
		want, err := os.ReadFile(filepath.Join(dir, gen))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(gen)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run 'go tool templ generate' and commit the result", gen)
		}
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
