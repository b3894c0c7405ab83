package database_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"cloudplane/models/database"
	"cloudplane/models/database/migrations"
	"cloudplane/models/modelstest"
)

// Every dialect has the same steps, numbered without gaps.
func TestStepsAreTheSameOnEveryDialect(t *testing.T) {
	var ids [][]string
	for _, d := range migrations.Dialects {
		steps, err := migrations.Steps(d)
		if err != nil {
			t.Fatal(err)
		}
		var list []string
		for _, st := range steps {
			list = append(list, st.ID)
		}
		ids = append(ids, list)
	}
	for i := range ids[1:] {
		if strings.Join(ids[0], ",") != strings.Join(ids[i+1], ",") {
			t.Errorf("%s has %v, %s has %v", migrations.Dialects[0], ids[0], migrations.Dialects[i+1], ids[i+1])
		}
	}
}

// Eight processes starting at once on a fresh database all succeed, and
// each step runs once.
func TestMigrateConcurrently(t *testing.T) {
	ctx := context.Background()
	dsn := modelstest.EmptyDSN(t)
	const clients = 8
	dbs := make([]*database.DB, clients)
	for i := range dbs {
		dbs[i] = modelstest.OpenDatabase(t, dsn)
	}
	errs := make([]error, clients)
	var start, done sync.WaitGroup
	start.Add(1)
	for i, db := range dbs {
		done.Add(1)
		go func() {
			defer done.Done()
			start.Wait()
			errs[i] = db.Migrate(ctx)
		}()
	}
	start.Done()
	done.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("client %d: %v", i, err)
		}
	}
	assertCurrent(t, dbs[0])
}

// assertCurrent checks that every step is applied once, with its time.
func assertCurrent(t *testing.T, db *database.DB) {
	t.Helper()
	steps, err := migrations.Steps(db.Gorm().Name())
	if err != nil {
		t.Fatal(err)
	}
	var rows []struct{ ID string }
	if err := db.Gorm().Raw("SELECT id FROM schema_migrations ORDER BY id").Scan(&rows).Error; err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(steps) {
		t.Fatalf("schema_migrations has %d rows, want %d: %v", len(rows), len(steps), rows)
	}
	status, err := db.MigrationStatus(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for i, st := range status {
		if st.ID != steps[i].ID || !st.Applied {
			t.Errorf("step %d: %+v, want %s applied", i, st, steps[i].ID)
		}
	}
}

// A database a newer release migrated is refused, and left alone.
func TestMigrateRefusesNewerDatabase(t *testing.T) {
	ctx := context.Background()
	db := modelstest.OpenDatabase(t, modelstest.EmptyDSN(t))
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if err := db.Gorm().Exec("INSERT INTO schema_migrations (id) VALUES ('9999_from_the_future')").Error; err != nil {
		t.Fatal(err)
	}
	err := db.Migrate(ctx)
	if !errors.Is(err, database.ErrNewerDatabase) || !strings.Contains(err.Error(), "9999_from_the_future") {
		t.Fatalf("Migrate = %v, want the newer-database error naming the step", err)
	}
	status, err := db.MigrationStatus(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if last := status[len(status)-1]; last.ID != "9999_from_the_future" || !last.Applied {
		t.Errorf("status ends with %+v, want the unknown step as applied", last)
	}
}

// BenchmarkNewTestDatabase compares the two ways a test gets a migrated
// database: copied from the template (what modelstest.Open does) or
// created empty and migrated. On SQLite both migrate a new file.
func BenchmarkNewTestDatabase(b *testing.B) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		dsn  func(testing.TB) string
	}{{"template", modelstest.DSN}, {"migrate", modelstest.EmptyDSN}} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				db, err := database.Open(ctx, tc.dsn(b))
				if err == nil {
					err = db.Migrate(ctx)
					_ = db.Close()
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
