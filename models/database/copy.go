package database

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// copyBatch is how many rows go into one INSERT: large enough to keep
// round trips few, small enough to stay far below PostgreSQL's 65,535
// parameters for the widest table.
const copyBatch = 500

// copyBatchBytes flushes a batch early once its byte values (attachment
// contents) reach it, so a copy holds a few files in memory, not 500.
const copyBatchBytes = 32 << 20

// CopyTableCount is one table copied and its row count, checked equal on
// both sides.
type CopyTableCount struct {
	Table string
	Rows  int64
}

// CopySQLiteToPostgres copies every table of the SQLite database at
// sqlitePath into to, a PostgreSQL database migrated to the same schema
// version and holding no rows. It reads one snapshot of the source (a
// server may still be running on it; what it writes later is not copied),
// writes in one transaction in foreign key order, and commits only if
// every table's row count matches, so a failed copy leaves the target
// empty.
func CopySQLiteToPostgres(ctx context.Context, sqlitePath string, to *DB) ([]CopyTableCount, error) {
	if to.IsSQLite() {
		return nil, errors.New("the target of a copy must be a postgres:// database")
	}
	src, err := sql.Open("sqlite3", "file:"+sqlitePath+"?mode=ro&_txlock=deferred")
	if err != nil {
		return nil, err
	}
	defer src.Close()
	snapshot, err := src.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", sqlitePath, err)
	}
	defer snapshot.Rollback() //nolint:errcheck // read-only
	dst, err := to.gorm.DB()
	if err != nil {
		return nil, err
	}
	target, err := dst.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer target.Rollback() //nolint:errcheck // a no-op after Commit
	tables, err := copyOrder(ctx, snapshot, target)
	if err != nil {
		return nil, err
	}
	var counts []CopyTableCount
	for _, t := range tables {
		n, err := copyTable(ctx, snapshot, target, t)
		if err != nil {
			return nil, fmt.Errorf("copy %s: %w", t.name, err)
		}
		counts = append(counts, CopyTableCount{Table: t.name, Rows: n})
	}
	if _, err := checkDerived(ctx, snapshot, target, "tickets' comment counts", ticketCountsQuery); err != nil {
		return nil, err
	}
	n, err := checkDerived(ctx, snapshot, target, "account_usage", usageQuery)
	if err != nil {
		return nil, err
	}
	counts = append(counts, CopyTableCount{Table: "account_usage", Rows: n})
	return counts, target.Commit()
}

// Values the target's triggers build from the rows copied (migrations
// 0010 and 0012), so they are not copied: account_usage, and the columns
// of derivedColumns. These queries read them, one line a row, to check
// both sides agree, which they do unless the source's had drifted.
var derivedColumns = map[string][]string{"tickets": {"comment_rows", "comment_bytes", "description_author"}}

const (
	usageQuery        = "SELECT account_id || ' ' || resource || ' ' || used FROM account_usage WHERE used <> 0"
	ticketCountsQuery = "SELECT id || ' ' || comment_rows || ' ' || comment_bytes || ' ' || coalesce(description_author, '-') FROM tickets"
)

// checkDerived compares what query reads on both sides and returns its
// row count.
func checkDerived(ctx context.Context, src, dst *sql.Tx, what, query string) (int64, error) {
	want, err := strings1(ctx, src, query)
	if err != nil {
		return 0, err
	}
	got, err := strings1(ctx, dst, query)
	if err != nil {
		return 0, err
	}
	slices.Sort(want) // in Go: the two databases collate differently
	slices.Sort(got)
	if !slices.Equal(want, got) {
		return 0, fmt.Errorf("%s: the copied rows make %d lines, the source %d; the first that differ: %s", what,
			len(got), len(want), firstDifference(got, want))
	}
	return int64(len(got)), nil
}

// firstDifference names the first line, in sorted order, where the
// target's lines and the source's part.
func firstDifference(got, want []string) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return fmt.Sprintf("copied %q, source %q", got[i], want[i])
		}
	}
	if len(got) > len(want) {
		return fmt.Sprintf("copied %q, source none", got[len(want)])
	}
	return fmt.Sprintf("copied none, source %q", want[len(got)])
}

// copyTarget is a target table with the PostgreSQL type of each column.
type copyTarget struct {
	name    string
	columns map[string]string
}

// copyOrder lists the source's tables in an order where every table comes
// after the tables it references, and checks the target is empty and has
// every one of them.
func copyOrder(ctx context.Context, src, dst *sql.Tx) ([]copyTarget, error) {
	names, err := strings1(ctx, src, "SELECT name FROM sqlite_master WHERE type = 'table' "+
		"AND name NOT LIKE 'sqlite_%' AND name NOT IN ('schema_migrations', 'account_usage') ORDER BY name")
	if err != nil {
		return nil, err
	}
	columns := map[string]map[string]string{}
	rows, err := dst.QueryContext(ctx, "SELECT table_name, column_name, data_type FROM information_schema.columns "+
		"WHERE table_schema = current_schema()")
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var table, column, typ string
		if err := rows.Scan(&table, &column, &typ); err != nil {
			rows.Close()
			return nil, err
		}
		if columns[table] == nil {
			columns[table] = map[string]string{}
		}
		columns[table][column] = typ
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	refs := map[string][]string{}
	rows, err = dst.QueryContext(ctx, "SELECT c.conrelid::regclass::text, c.confrelid::regclass::text "+
		"FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace "+
		"WHERE c.contype = 'f' AND n.nspname = current_schema()")
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var from, to string
		if err := rows.Scan(&from, &to); err != nil {
			rows.Close()
			return nil, err
		}
		refs[from] = append(refs[from], to)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for _, n := range names {
		if columns[n] == nil {
			return nil, fmt.Errorf("the target has no table %s: migrate it with the same cloudplane version", n)
		}
		var hasRows bool
		if err := dst.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM "+quoteIdent(n)+")").Scan(&hasRows); err != nil {
			return nil, err
		}
		if hasRows {
			return nil, fmt.Errorf("the target's table %s already has rows: copy into a fresh database", n)
		}
	}
	var ordered []copyTarget
	done := map[string]bool{}
	var visit func(string, int) error
	visit = func(n string, depth int) error {
		if done[n] || !slices.Contains(names, n) {
			return nil
		}
		if depth > len(names) {
			return fmt.Errorf("tables reference each other in a cycle through %s", n)
		}
		for _, r := range refs[n] {
			if r != n {
				if err := visit(r, depth+1); err != nil {
					return err
				}
			}
		}
		done[n] = true
		ordered = append(ordered, copyTarget{name: n, columns: columns[n]})
		return nil
	}
	for _, n := range names {
		if err := visit(n, 0); err != nil {
			return nil, err
		}
	}
	return ordered, nil
}

// copyTable copies one table in batches and returns its row count after
// checking the target holds as many rows as the source.
func copyTable(ctx context.Context, src, dst *sql.Tx, t copyTarget) (int64, error) {
	rows, err := src.QueryContext(ctx, "SELECT * FROM "+quoteIdent(t.name))
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return 0, err
	}
	var copiedCols []string // the columns written: not those triggers build
	derived := make([]bool, len(cols))
	for i, c := range cols {
		if _, ok := t.columns[c]; !ok {
			return 0, fmt.Errorf("the target has no column %s", c)
		}
		if derived[i] = slices.Contains(derivedColumns[t.name], c); !derived[i] {
			copiedCols = append(copiedCols, c)
		}
	}
	var copied, batchBytes int64
	batch := make([]any, 0, copyBatch*len(copiedCols))
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		_, err := dst.ExecContext(ctx, insertStatement(t.name, copiedCols, len(batch)/len(copiedCols)), batch...)
		batch, batchBytes = batch[:0], 0
		return err
	}
	for rows.Next() {
		values := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range values {
			ptrs[i] = &values[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return 0, err
		}
		for i, v := range values {
			if derived[i] {
				continue
			}
			if b, ok := v.([]byte); ok {
				batchBytes += int64(len(b))
			}
			batch = append(batch, convertForPostgres(v, t.columns[cols[i]]))
		}
		copied++
		if len(batch) == copyBatch*len(copiedCols) || batchBytes >= copyBatchBytes {
			if err := flush(); err != nil {
				return 0, err
			}
		}
	}
	if err := rows.Err(); err != nil {
		return 0, err
	}
	if err := flush(); err != nil {
		return 0, err
	}
	var inTarget int64
	if err := dst.QueryRowContext(ctx, "SELECT count(*) FROM "+quoteIdent(t.name)).Scan(&inTarget); err != nil {
		return 0, err
	}
	if inTarget != copied {
		return 0, fmt.Errorf("read %d rows but the target holds %d", copied, inTarget)
	}
	return copied, nil
}

// convertForPostgres turns a value as go-sqlite3 reads it into one the
// target column takes: SQLite keeps booleans as integers and has no
// separate byte and text affinities where GORM's SQLite types are loose.
func convertForPostgres(v any, pgType string) any {
	switch x := v.(type) {
	case int64:
		if pgType == "boolean" {
			return x != 0
		}
	case []byte:
		if pgType != "bytea" {
			return string(x)
		}
	case string:
		if pgType == "bytea" {
			return []byte(x)
		}
	}
	return v
}

func insertStatement(table string, cols []string, rows int) string {
	var b strings.Builder
	b.WriteString("INSERT INTO " + quoteIdent(table) + " (")
	for i, c := range cols {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(quoteIdent(c))
	}
	b.WriteString(") VALUES ")
	n := 1
	for r := range rows {
		if r > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		for i := range cols {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "$%d", n)
			n++
		}
		b.WriteByte(')')
	}
	return b.String()
}

// quoteIdent quotes a table or column name read from the database's own
// catalogue, the same way on SQLite and PostgreSQL.
func quoteIdent(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }
