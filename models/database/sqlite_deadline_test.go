package database_test

import (
	"context"
	"errors"
	"testing"
)

// A read whose context ends stops: before it starts (both databases), and
// on SQLite between two rows of its result. (pgx may have received every
// row already, and then hands them out.)
func TestReadsEndWithTheirContext(t *testing.T) {
	db := openDB(t)
	sqlDB, err := db.Gorm().DB()
	if err != nil {
		t.Fatal(err)
	}
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := sqlDB.QueryContext(ended, "SELECT 1"); !errors.Is(err, context.Canceled) {
		t.Fatalf("a query with an ended context: %v", err)
	}
	if !isSQLite() {
		return
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rows, err := sqlDB.QueryContext(ctx, "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000) SELECT i FROM n")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	read := 0
	for rows.Next() {
		if read++; read == 10 {
			cancel()
		}
	}
	if !errors.Is(rows.Err(), context.Canceled) || read >= 1000 {
		t.Fatalf("read %d of 1000 rows, then %v; want the rows to stop with the context", read, rows.Err())
	}
}
