package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"cloudplane/handlers/testserver"
	"cloudplane/models"
	"cloudplane/models/database"
	"cloudplane/models/modelstest"
)

// apiGet answers GET path on base with key, failing the test unless 200.
func apiGet(t *testing.T, base, key, path string) string {
	t.Helper()
	return apiCall(t, http.MethodGet, base, key, path, "")
}

// apiPost posts a JSON body and returns the 200 answer's body.
func apiPost(t *testing.T, base, key, path, body string) string {
	t.Helper()
	return apiCall(t, http.MethodPost, base, key, path, body)
}

func apiCall(t *testing.T, method, base, key, path, reqBody string) string {
	t.Helper()
	req, _ := http.NewRequest(method, base+path, strings.NewReader(reqBody))
	req.Header.Set("Authorization", "Bearer "+key)
	if reqBody != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("%s %s: %d %s", method, path, res.StatusCode, body)
	}
	return string(body)
}

// populate gives the owner with email filesystems named fs1..fsN.
func populate(t *testing.T, store *models.Store, email string, n int) models.Actor {
	t.Helper()
	ctx := context.Background()
	u, err := store.UserByEmail(ctx, email)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= n; i++ {
		if _, err := store.CreateFilesystem(ctx, u.Actor(), models.CreateFilesystemInput{
			Name: fmt.Sprintf("fs%d", i), Region: "us-east-1"}); err != nil {
			t.Fatal(err)
		}
	}
	return u.Actor()
}

// A backup taken while another connection keeps writing is a consistent,
// checked database that a server restored from it serves.
func TestBackupOfALiveDatabaseRestores(t *testing.T) {
	dir := t.TempDir()
	live, backup := migrated(t, filepath.Join(dir, "live.db")), filepath.Join(dir, "backups", "copy.db")
	key := owner(t, live, "ada@example.com")
	store := openDB(t, live)
	actor := populate(t, store, "ada@example.com", 5)
	withFile := attachFile(t, store, actor)

	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // tickets written while the backup runs
		defer wg.Done()
		for i := 0; i < 500; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := store.CreateTicket(context.Background(), actor, models.CreateTicketInput{
				Subject: "during backup", Description: "d", Type: models.TicketServiceRequest}); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	out := mustCLI(t, "backup", "--database", live, "--to", backup)
	close(stop)
	wg.Wait()
	if !strings.Contains(out, "integrity checked") {
		t.Fatalf("backup said %q", out)
	}
	expectOnlyFiles(t, filepath.Dir(backup), "copy.db")
	if err := database.CheckIntegrity(context.Background(), backup); err != nil {
		t.Fatal(err)
	}

	base := testserver.Start(t, testserver.Options{Database: backup}).URL
	body := apiGet(t, base, key, "/api/v1/filesystems")
	for i := 1; i <= 5; i++ {
		if !strings.Contains(body, fmt.Sprintf(`"name":"fs%d"`, i)) {
			t.Fatalf("restored server lacks fs%d: %s", i, body)
		}
	}
	expectAttachment(t, base, key, withFile)

	for _, args := range [][]string{
		{"backup", "--database", live, "--to", backup},
		{"backup", "--database", filepath.Join(dir, "missing.db"), "--to", filepath.Join(dir, "x.db")},
		{"backup", "--database", "postgres://postgres@127.0.0.1:5432/test", "--to", filepath.Join(dir, "y.db")},
	} {
		if _, errOut, code := cli(t, args...); code == 0 || strings.Count(errOut, "\n") != 1 {
			t.Fatalf("%v: exit %d, stderr %q; want one line and a failure", args, code, errOut)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "missing.db")); !os.IsNotExist(err) {
		t.Fatal("backup of a missing database created it")
	}
}

// Backups of one database to one name at once each write their own
// temporary file, so none fails for another's: exactly one names the
// file, one complete, checked copy, and every other says the name is
// taken (never replacing it); nothing else is left beside it.
func TestConcurrentBackupsToOneName(t *testing.T) {
	dir := t.TempDir()
	live := migrated(t, filepath.Join(dir, "live.db"))
	owner(t, live, "ada@example.com")
	populate(t, openDB(t, live), "ada@example.com", 3)
	isolateEnv(t)
	for _, runs := range []int{2, 6} {
		to := filepath.Join(dir, fmt.Sprintf("backups%d", runs), "today.db")
		results := make([]result, runs)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range results {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				var r result
				r.stdout, r.stderr, r.exit = runCLI([]string{"backup", "--database", live, "--to", to})
				results[i] = r
			}()
		}
		close(start)
		wg.Wait()
		succeeded := 0
		for i, r := range results {
			switch {
			case r.exit == 0 && strings.Contains(r.stdout, "integrity checked"):
				succeeded++
			case r.exit != 0 && strings.Contains(r.stderr, "already exists"):
			default:
				t.Fatalf("%d backups at once: run %d exit %d: %s%s", runs, i, r.exit, r.stdout, r.stderr)
			}
		}
		if succeeded != 1 {
			t.Fatalf("%d backups at once: %d named the file, want exactly 1", runs, succeeded)
		}
		if err := database.CheckIntegrity(context.Background(), to); err != nil {
			t.Fatal(err)
		}
		expectOnlyFiles(t, filepath.Dir(to), "today.db")
		restored := openDB(t, to)
		u, err := restored.UserByEmail(context.Background(), "ada@example.com")
		if err != nil {
			t.Fatal(err)
		}
		fss, err := restored.Filesystems(context.Background(), u.Actor())
		if err != nil || len(fss) != 3 {
			t.Fatalf("the backup holds %d filesystems (%v), want 3", len(fss), err)
		}
	}
}

// A backup that fails removes its temporary file.
func TestFailedBackupLeavesNoFile(t *testing.T) {
	dir := t.TempDir()
	live := migrated(t, filepath.Join(dir, "live.db"))
	store := openDB(t, live)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	to := filepath.Join(dir, "backups", "today.db")
	if err := store.Database().Backup(ctx, to); err == nil {
		t.Fatal("a backup with a cancelled context succeeded")
	}
	expectOnlyFiles(t, filepath.Dir(to))
}

// A backup removes the temporary copies interrupted backups left in its
// folder once they have gone unwritten for hours, and leaves a recent
// one, which may be another backup still running.
func TestBackupRemovesStalePartialCopies(t *testing.T) {
	dir := t.TempDir()
	live := migrated(t, filepath.Join(dir, "live.db"))
	store := openDB(t, live)
	backups := filepath.Join(dir, "backups")
	if err := os.MkdirAll(backups, 0o750); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(backups, ".yesterday.db.123.partial")
	running := filepath.Join(backups, ".today.db.456.partial")
	for _, p := range []string{stale, running} {
		if err := os.WriteFile(p, []byte("half a copy"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-7 * time.Hour)
	if err := os.Chtimes(stale, old, old); err != nil {
		t.Fatal(err)
	}
	if err := store.Database().Backup(context.Background(), filepath.Join(backups, "now.db")); err != nil {
		t.Fatal(err)
	}
	expectOnlyFiles(t, backups, ".today.db.456.partial", "now.db")
}

// expectOnlyFiles fails unless dir holds exactly the files named.
func expectOnlyFiles(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if strings.Join(got, ",") != strings.Join(names, ",") {
		t.Fatalf("%s holds %v, want %v", dir, got, names)
	}
}

// serve takes backups on schedule and keeps only the newest --backup-keep.
func TestScheduledBackupsArePruned(t *testing.T) {
	dir := t.TempDir()
	live, backups := migrated(t, filepath.Join(dir, "live.db")), filepath.Join(dir, "backups")
	owner(t, live, "ada@example.com")
	srv := testserver.Start(t, testserver.Options{Database: live, Args: []string{
		"--backup-dir", backups, "--backup-every", "1s", "--backup-keep", "2", "--metrics-addr", "127.0.0.1:0"}})
	srv.WaitLog(t, "scheduled backup written", 3, 30*time.Second)
	// Each outcome reaches the metrics too.
	m := metricsListening.FindStringSubmatch(srv.Logs())
	if m == nil {
		t.Fatalf("no metrics address in the log:\n%s", srv.Logs())
	}
	scraped := get(t, m[1], http.StatusOK)
	var successes float64
	if _, err := fmt.Sscanf(afterPrefix(scraped, `cloudplane_backups_total{outcome="success"} `), "%g", &successes); err != nil || successes < 3 {
		t.Fatalf("cloudplane_backups_total success %v (%v) after 3 backups:\n%s", successes, err, scraped)
	}
	if !strings.Contains(scraped, `cloudplane_backups_total{outcome="failure"} 0`) ||
		!strings.Contains(scraped, "cloudplane_backup_last_success_timestamp_seconds 1") {
		t.Fatalf("backup series missing or wrong:\n%s", scraped)
	}
	srv.Stop(t, syscall.SIGTERM, 30*time.Second)
	entries, err := os.ReadDir(backups)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 {
		t.Fatalf("%d files in the backup folder, want the newest 2:\n%s", len(entries), srv.Logs())
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "cloudplane-") || !strings.HasSuffix(e.Name(), ".db") {
			t.Fatalf("unexpected file %s", e.Name())
		}
		if err := database.CheckIntegrity(context.Background(), filepath.Join(backups, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
}

// copy moves a populated SQLite installation into a fresh PostgreSQL
// database, which a server then serves with the same keys and data.
func TestCopyToPostgresServesTheSameData(t *testing.T) {
	base := os.Getenv(modelstest.PostgresEnv)
	if base == "" {
		t.Skip("copy needs PostgreSQL: set " + modelstest.PostgresEnv)
	}
	live := migrated(t, filepath.Join(t.TempDir(), "live.db"))
	key := owner(t, live, "ada@example.com")
	store := openDB(t, live)
	actor := populate(t, store, "ada@example.com", 3)
	if _, err := store.CreateTicket(context.Background(), actor, models.CreateTicketInput{
		Subject: "moving", Description: "to postgres", Type: models.TicketServiceRequest}); err != nil {
		t.Fatal(err)
	}
	withFile := attachFile(t, store, actor)
	partition, err := store.CreateFabricPartition(context.Background(), actor, models.CreateFabricPartitionInput{
		Name: "moving", Region: "us-west-1"})
	if err != nil {
		t.Fatal(err)
	}
	target, drop, err := modelstest.CreatePostgresDB(base)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = drop() })

	out := mustCLI(t, "copy", "--from", live, "--to", target)
	if !strings.Contains(out, "row counts match") || !strings.Contains(out, "filesystems") || !strings.Contains(out, "fabric_partitions") {
		t.Fatalf("copy said:\n%s", out)
	}
	if _, errOut, code := cli(t, "copy", "--from", live, "--to", target); code == 0 || !strings.Contains(errOut, "fresh database") {
		t.Fatalf("a second copy into the same database: exit %d, %q", code, errOut)
	}

	srv := testserver.Start(t, testserver.Options{Database: target}).URL
	body := apiGet(t, srv, key, "/api/v1/filesystems")
	for i := 1; i <= 3; i++ {
		if !strings.Contains(body, fmt.Sprintf(`"name":"fs%d"`, i)) {
			t.Fatalf("copied server lacks fs%d: %s", i, body)
		}
	}
	if body := apiGet(t, srv, key, "/api/v1/tickets"); !strings.Contains(body, "moving") {
		t.Fatalf("copied server lacks the ticket: %s", body)
	}
	expectAttachment(t, srv, key, withFile)
	// The partition came across: the copied server renames it, in its region.
	if body := apiPost(t, srv, key, "/api/v1/fabric/"+partition.ID, `{"name": "moved"}`); !strings.Contains(body, `"name":"moved"`) ||
		!strings.Contains(body, `"region":{"name":"us-west-1"`) {
		t.Fatalf("copied server lacks the fabric partition: %s", body)
	}
}

// afterPrefix returns the text after the first line starting with prefix.
func afterPrefix(text, prefix string) string {
	for _, line := range strings.Split(text, "\n") {
		if rest, ok := strings.CutPrefix(line, prefix); ok {
			return rest
		}
	}
	return ""
}
