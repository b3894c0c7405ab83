package migrations

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"strings"
	"testing"
)

// A released step never changes: a database made with it has run it as it
// was. released.sha256 (sha256sum's format) holds the hash of every step
// on main, of both dialects; a step whose SQL no longer has its hash fails
// here by name, and so does a new step until its hash is added.
func TestReleasedStepsNeverChange(t *testing.T) {
	listed := releasedHashes(t)
	for _, dialect := range Dialects {
		steps, err := Steps(dialect)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range steps {
			name := dialect + "/" + st.ID + ".sql"
			sum := sha256.Sum256([]byte(st.SQL))
			got := hex.EncodeToString(sum[:])
			want, ok := listed[name]
			delete(listed, name)
			switch {
			case !ok:
				t.Errorf("%s has no hash in released.sha256; once it is final, add it: (cd models/database/migrations && sha256sum %s >> released.sha256)", name, name)
			case got != want:
				t.Errorf("released step %s changed (sha256 %s, released as %s): add a new step instead of editing one", name, got, want)
			}
		}
	}
	for name := range listed {
		t.Errorf("released step %s is gone from the embedded migrations", name)
	}
}

// releasedHashes reads released.sha256: file name to hex SHA-256.
func releasedHashes(t *testing.T) map[string]string {
	t.Helper()
	raw, err := os.ReadFile("released.sha256")
	if err != nil {
		t.Fatal(err)
	}
	hashes := map[string]string{}
	lines := bufio.NewScanner(bytes.NewReader(raw))
	for n := 1; lines.Scan(); n++ {
		sum, name, ok := strings.Cut(lines.Text(), "  ")
		if !ok || len(sum) != sha256.Size*2 {
			t.Fatalf("released.sha256 line %d: want \"<sha256>  <dialect>/<step>.sql\": %q", n, lines.Text())
		}
		if _, dup := hashes[name]; dup {
			t.Fatalf("released.sha256 line %d: %s listed twice", n, name)
		}
		hashes[name] = sum
	}
	return hashes
}
