package database_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"cloudplane/models/database"
)

// openKeeping opens a raw pool of n connections with the driver the
// server's pools use, over a table of 100 numbered rows.
func openKeeping(t testing.TB, n int) *sql.DB {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kept.db")
	db, err := sql.Open(database.SQLiteDriver, "file:"+path+"?_busy_timeout=10000&_journal_mode=WAL")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	db.SetMaxOpenConns(n)
	db.SetMaxIdleConns(n)
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, "CREATE TABLE nums (n INTEGER PRIMARY KEY, word TEXT NOT NULL)"); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 100; i++ {
		if _, err := db.ExecContext(ctx, "INSERT INTO nums VALUES (?, ?)", i, fmt.Sprint("w", i)); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// sumBelow reads the rows below limit through the query text q.
func sumBelow(t *testing.T, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, text string, limit int) int {
	t.Helper()
	rows, err := q.QueryContext(context.Background(), text, limit)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	sum := 0
	for rows.Next() {
		var n int
		var w string
		if err := rows.Scan(&n, &w); err != nil {
			t.Fatal(err)
		}
		if w != fmt.Sprint("w", n) {
			t.Fatalf("row %d reads word %q", n, w)
		}
		sum += n
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return sum
}

func triangle(n int) int { return n * (n + 1) / 2 }

// A query read again on a connection runs the statement prepared the first
// time, with each call's arguments, and answers as a fresh one would.
func TestConnectionsKeepTheirQueriesPrepared(t *testing.T) {
	db := openKeeping(t, 1)
	const q = "SELECT n, word FROM nums WHERE n <= ? ORDER BY n"
	before := database.StatementsKept()
	for limit := 1; limit <= 50; limit++ {
		if got := sumBelow(t, db, q, limit); got != triangle(limit) {
			t.Fatalf("limit %d: sum %d, want %d", limit, got, triangle(limit))
		}
	}
	if kept := database.StatementsKept() - before; kept != 1 {
		t.Fatalf("50 reads of one query prepared %d statements to keep, want 1", kept)
	}
}

// The same query asked again while its first rows are still open (inside
// a transaction, on one connection) gets a statement of its own: the kept
// one is not reset under the open rows.
func TestAKeptStatementServesOneQueryAtATime(t *testing.T) {
	db := openKeeping(t, 1)
	const q = "SELECT n, word FROM nums WHERE n <= ? ORDER BY n"
	tx, err := db.BeginTx(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	outer, err := tx.QueryContext(context.Background(), q, 10)
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for outer.Next() {
		var n int
		var w string
		if err := outer.Scan(&n, &w); err != nil {
			t.Fatal(err)
		}
		seen += n
		if seen > triangle(10) {
			t.Fatalf("the outer rows went on past their end (at %d): the inner read reset them", n)
		}
		if got := sumBelow(t, tx, q, n); got != triangle(n) {
			t.Fatalf("inner read at %d: sum %d, want %d", n, got, triangle(n))
		}
	}
	if err := outer.Close(); err != nil {
		t.Fatal(err)
	}
	if seen != triangle(10) {
		t.Fatalf("outer rows sum %d, want %d", seen, triangle(10))
	}
	if got := sumBelow(t, tx, q, 100); got != triangle(100) {
		t.Fatalf("after the outer rows closed: sum %d", got)
	}
}

// A connection keeps a bounded number of queries: reading many distinct
// texts (GORM writes one per IN list length) evicts the least recently
// used, and every read still answers right.
func TestKeptStatementsAreBounded(t *testing.T) {
	db := openKeeping(t, 1)
	hot := "SELECT n, word FROM nums WHERE n <= ? ORDER BY n"
	before := database.StatementsKept()
	for i := range 200 {
		cold := fmt.Sprintf("SELECT n, word FROM nums WHERE n <= ? AND %d = %d ORDER BY n", i, i)
		if got := sumBelow(t, db, cold, 5); got != triangle(5) {
			t.Fatalf("query %d: sum %d", i, got)
		}
		if got := sumBelow(t, db, hot, 7); got != triangle(7) {
			t.Fatalf("hot query after %d: sum %d", i, got)
		}
	}
	// The hot query, used between every two others, is never the least
	// recently used: it is prepared once, each cold one once.
	if kept := database.StatementsKept() - before; kept != 201 {
		t.Fatalf("prepared %d statements to keep, want 201", kept)
	}
}

// Statements that cannot be kept run the driver's way: several statements
// in one text, and named arguments.
func TestQueriesThatAreNotKept(t *testing.T) {
	db := openKeeping(t, 1)
	before := database.StatementsKept()
	var n int
	if err := db.QueryRowContext(context.Background(), "SELECT count(*) FROM nums WHERE n <= :top", sql.Named("top", 9)).Scan(&n); err != nil || n != 9 {
		t.Fatalf("named argument: %d, %v", n, err)
	}
	if err := db.QueryRowContext(context.Background(), "SELECT 1; SELECT count(*) FROM nums").Scan(&n); err != nil {
		t.Fatalf("two statements: %v", err)
	}
	if kept := database.StatementsKept() - before; kept != 0 {
		t.Fatalf("kept %d statements", kept)
	}
}

// A column added by another connection after a statement was kept does
// not disturb it: SQLite prepares it again, and the columns it names read
// as before.
func TestKeptStatementsOutliveASchemaChange(t *testing.T) {
	db := openKeeping(t, 1)
	const q = "SELECT n, word FROM nums WHERE n <= ? ORDER BY n"
	if got := sumBelow(t, db, q, 20); got != triangle(20) {
		t.Fatal(got)
	}
	other, err := sql.Open("sqlite3", "file:"+dbPath(t, db)+"?_busy_timeout=10000")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.Exec("ALTER TABLE nums ADD COLUMN extra TEXT"); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Exec("INSERT INTO nums (n, word, extra) VALUES (101, 'w101', 'x')"); err != nil {
		t.Fatal(err)
	}
	if got := sumBelow(t, db, q, 101); got != triangle(101) {
		t.Fatalf("after the schema changed: sum %d, want %d", got, triangle(101))
	}
}

func dbPath(t *testing.T, db *sql.DB) string {
	t.Helper()
	var seq int
	var name, file string
	if err := db.QueryRow("PRAGMA database_list").Scan(&seq, &name, &file); err != nil {
		t.Fatal(err)
	}
	return file
}

// Many goroutines reading hot and cold queries through a full pool all
// read right: each connection's statements serve its own caller only.
func TestKeptStatementsUnderManyReaders(t *testing.T) {
	db := openKeeping(t, 8)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 100 {
				limit := 1 + (g*7+i)%100
				q := "SELECT n, word FROM nums WHERE n <= ? ORDER BY n"
				if i%3 == 0 {
					q = fmt.Sprintf("SELECT n, word FROM nums WHERE n <= ? AND %d >= 0 ORDER BY n", i%40)
				}
				rows, err := db.Query(q, limit)
				if err != nil {
					errs <- err
					return
				}
				sum := 0
				for rows.Next() {
					var n int
					var w string
					if err := rows.Scan(&n, &w); err != nil {
						errs <- err
						return
					}
					sum += n
				}
				rows.Close()
				if sum != triangle(limit) {
					errs <- fmt.Errorf("limit %d: sum %d", limit, sum)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// BenchmarkRepeatedRead reads ten rows with a query kept prepared, and
// with the same query given a named argument, which the driver prepares on
// every call: what keeping saves.
//
//	go test ./models/database -run '^$' -bench RepeatedRead
func BenchmarkRepeatedRead(b *testing.B) {
	for _, c := range []struct {
		name, query string
		arg         any
	}{
		{"kept", "SELECT n, word FROM nums WHERE n > ? ORDER BY n LIMIT 10", 40},
		{"prepared-each-time", "SELECT n, word FROM nums WHERE n > :from ORDER BY n LIMIT 10", sql.Named("from", 40)},
	} {
		b.Run(c.name, func(b *testing.B) {
			db := openKeeping(b, 1)
			b.ReportAllocs()
			for b.Loop() {
				rows, err := db.Query(c.query, c.arg)
				if err != nil {
					b.Fatal(err)
				}
				for rows.Next() {
					var n int
					var w string
					if err := rows.Scan(&n, &w); err != nil {
						b.Fatal(err)
					}
				}
				rows.Close()
			}
		})
	}
}
