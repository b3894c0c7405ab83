package models_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// Every page of the audit log, deep or not, filtered or not, must be one
// index range scan in page order: no sort, no rows read and thrown away.
// This pins the plans on whichever database the suite runs on.
func TestAuditPageIsAnIndexRangeScan(t *testing.T) {
	store := modelstest.Open(t)
	ctx := context.Background()
	accountID := models.NewID()
	seedAuditRows(t, store, accountID, 3000)
	at := time.Date(2026, 1, 1, 0, 10, 0, 0, time.UTC)
	cursor := models.NewID()
	// The key (account_id, event_time, id) serves the pages without a
	// resource_type.
	byTime := "audit_events_pkey"
	if modelstest.Backend() == "sqlite" {
		byTime = "USING PRIMARY KEY"
	}
	cases := []struct {
		name    string
		in      models.AuditEventsInput
		afterID string
		index   string
	}{
		{"first page", models.AuditEventsInput{}, "", byTime},
		{"next page", models.AuditEventsInput{}, cursor, byTime},
		{"start", models.AuditEventsInput{Start: "2026-01-01T00:05:00Z"}, "", byTime},
		{"start and end, next page", models.AuditEventsInput{Start: "2026-01-01T00:05:00Z", End: "2026-01-01T00:20:00Z"}, cursor, byTime},
		{"resource_type", models.AuditEventsInput{ResourceType: "cloud.filesystem"}, "", "idx_audit_account_type_time"},
		{"resource_type, start and end, next page", models.AuditEventsInput{ResourceType: "cloud.filesystem",
			Start: "2026-01-01T00:05:00Z", End: "2026-01-01T00:20:00Z"}, cursor, "idx_audit_account_type_time"},
		// The dashboard's newest first reads the same indexes backwards.
		{"newest first", models.AuditEventsInput{NewestFirst: true}, "", byTime},
		{"newest first, end, next page", models.AuditEventsInput{NewestFirst: true, End: "2026-01-01T00:20:00Z"}, cursor, byTime},
		{"newest first, resource_type, next page", models.AuditEventsInput{NewestFirst: true, ResourceType: "cloud.filesystem"},
			cursor, "idx_audit_account_type_time"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sql, args, err := models.AuditPageStatement(store.DB(), accountID, tc.in, at, tc.afterID)
			if err != nil {
				t.Fatal(err)
			}
			plan := explain(t, ctx, store, sql, args)
			t.Logf("%s plan:\n%s", modelstest.Backend(), plan)
			if !strings.Contains(plan, tc.index) {
				t.Fatalf("plan does not use %s", tc.index)
			}
			for _, bad := range []string{"TEMP B-TREE", "SCAN ", "Sort", "Filter:", "Seq Scan"} {
				if strings.Contains(plan, bad) {
					t.Fatalf("plan has %q", bad)
				}
			}
			cmp := ">"
			if tc.in.NewestFirst {
				cmp = "<"
			}
			if tc.afterID != "" && !strings.Contains(plan, "(event_time,id)"+cmp+"(?,?)") && !strings.Contains(plan, "ROW(event_time, (id)::text) "+cmp) {
				t.Fatalf("the cursor is not an index range condition")
			}
		})
	}
}

// explain returns the query plan as text. PostgreSQL is told to avoid
// sequential scans, as it would on a table of millions rather than the
// few thousand rows a test affords.
func explain(t *testing.T, ctx context.Context, store *models.Store, sql string, args []any) string {
	t.Helper()
	sqlDB, err := store.DB().DB()
	if err != nil {
		t.Fatal(err)
	}
	conn, err := sqlDB.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	query := "EXPLAIN QUERY PLAN " + sql
	if modelstest.Backend() == "postgres" {
		if _, err := conn.ExecContext(ctx, "SET enable_seqscan = off"); err != nil {
			t.Fatal(err)
		}
		defer conn.ExecContext(ctx, "RESET enable_seqscan") //nolint:errcheck // the connection is closed next
		query = "EXPLAIN (COSTS OFF) " + sql
	}
	rows, err := conn.QueryContext(ctx, query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var b strings.Builder
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintln(&b, vals[len(vals)-1]) // SQLite's detail, PostgreSQL's only column
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// seedAuditRows writes n events, four to a second from 2026-01-01, of two
// resource kinds, then refreshes the planner's statistics.
func seedAuditRows(t *testing.T, store *models.Store, accountID string, n int) {
	t.Helper()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	rows := make([]models.AuditEvent, n)
	for i := range rows {
		resource := "filesystem"
		if i%2 == 1 {
			resource = "api_key"
		}
		rows[i] = models.AuditEvent{ID: models.NewID(), AccountID: accountID, EventTime: base.Add(time.Duration(i/4) * time.Second),
			ServiceName: "cloud", ResourceName: resource, Action: "created", CatalogVersion: models.AuditCatalogVersion,
			ResourceLRNs: []string{}, AdditionalDetails: models.AuditDetails("{}")}
	}
	if err := store.DB().CreateInBatches(rows, 500).Error; err != nil {
		t.Fatal(err)
	}
	if err := store.DB().Exec("ANALYZE").Error; err != nil {
		t.Fatal(err)
	}
}

// The operator (the CLI) has no audit log to read.
func TestAuditEventsNeedAnAccountOrSupport(t *testing.T) {
	store := modelstest.Open(t)
	_, err := store.AuditEvents(context.Background(), models.OperatorActor, models.AuditEventsInput{})
	var e *models.Error
	if !errors.As(err, &e) || e.Code != models.CodeForbidden {
		t.Fatalf("err %v, want %s", err, models.CodeForbidden)
	}
}

// Support staff read the platform's log, the events of no account (here an
// internal note and a staff user made by the operator), and nothing of an
// account's; owners never see those. A page token of one log does not
// open the other.
func TestSupportReadsThePlatformsAuditLog(t *testing.T) {
	f := newTicketFixture(t)
	tk := f.incident(f.owner, "disk full")
	// The log orders events by time, then by id: events of one instant
	// (the fixture's clock stands still) come in the order of their random ids.
	f.clock.Advance(time.Second)
	if _, err := f.store.AddTicketNote(f.ctx, f.support, tk.ID, "asked storage"); err != nil {
		t.Fatal(err)
	}
	var platform []models.AuditEvent
	in := models.AuditEventsInput{}
	for {
		page, err := f.store.AuditEvents(f.ctx, f.support, in)
		if err != nil {
			t.Fatal(err)
		}
		platform = append(platform, page.Events...)
		if page.NextToken == "" {
			break
		}
		in.PageToken = page.NextToken
	}
	var actions []string
	for _, ev := range platform {
		if ev.AccountID != "" {
			t.Fatalf("support read an account's event: %+v", ev)
		}
		actions = append(actions, ev.ResourceName+"."+ev.Action)
	}
	if want := []string{"user.created", "ticket.note_added"}; !slices.Equal(actions, want) {
		t.Fatalf("platform log %v, want %v", actions, want)
	}

	owners, err := f.store.AuditEvents(f.ctx, f.owner, models.AuditEventsInput{})
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range owners.Events {
		if ev.AccountID != f.owner.AccountID {
			t.Fatalf("the owner read another log's event: %+v", ev)
		}
	}

	export, err := f.store.ExportAuditEvents(f.ctx, f.support, models.AuditEventsInput{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	if err := export.Each(f.ctx, func(ev models.AuditEvent) error {
		if ev.AccountID != "" {
			t.Errorf("the export holds an account's event: %+v", ev)
		}
		n++
		return nil
	}); err != nil || n != len(platform) {
		t.Fatalf("export: %d events, err %v; want %d", n, err, len(platform))
	}

	// Tokens are scoped to their log: a token of the platform's is refused
	// in an account's, and the other way round.
	seedAuditRows(t, f.store, f.owner.AccountID, models.AuditPageSize+1)
	seedAuditRows(t, f.store, "", models.AuditPageSize+1)
	for _, reader := range []struct{ first, other models.Actor }{{f.owner, f.support}, {f.support, f.owner}} {
		page, err := f.store.AuditEvents(f.ctx, reader.first, models.AuditEventsInput{})
		if err != nil || page.NextToken == "" {
			t.Fatalf("first page: %v", err)
		}
		_, err = f.store.AuditEvents(f.ctx, reader.other, models.AuditEventsInput{PageToken: page.NextToken})
		expectCode(t, err, models.CodeInvalidParameters, "page_token")
	}
}
