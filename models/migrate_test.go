package models_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"gorm.io/gorm"

	"cloudplane/models"
	"cloudplane/models/migrations"
	"cloudplane/models/modelstest"
)

// The first step is the schema the last AutoMigrate release created,
// written down: a database that release made (the fixture's dump) and one
// this binary takes to 0001 must be alike, down to index names.
func TestInitialStepIsReleasedSchema(t *testing.T) {
	ctx := context.Background()
	released, _ := loadFixture(t, "at0001")
	fresh := openRaw(t, modelstest.EmptyDSN(t))
	if err := models.MigrateTo(ctx, fresh, "0001_initial"); err != nil {
		t.Fatal(err)
	}
	// schema_migrations gained applied_at; the upgrade test covers it.
	diffSchemas(t, "released", describeSchema(t, openRaw(t, released), true, "schema_migrations"),
		"0001_initial", describeSchema(t, fresh, true, "schema_migrations"))
}

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
	dbs := make([]*gorm.DB, clients)
	for i := range dbs {
		dbs[i] = openRaw(t, dsn)
	}
	errs := make([]error, clients)
	var start, done sync.WaitGroup
	start.Add(1)
	for i, db := range dbs {
		done.Add(1)
		go func() {
			defer done.Done()
			start.Wait()
			errs[i] = models.Migrate(ctx, db)
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
func assertCurrent(t *testing.T, db *gorm.DB) {
	t.Helper()
	steps, err := migrations.Steps(db.Name())
	if err != nil {
		t.Fatal(err)
	}
	var rows []struct{ ID string }
	if err := db.Raw("SELECT id FROM schema_migrations ORDER BY id").Scan(&rows).Error; err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(steps) {
		t.Fatalf("schema_migrations has %d rows, want %d: %v", len(rows), len(steps), rows)
	}
	status, err := models.MigrationStatus(context.Background(), db)
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
	db := openRaw(t, modelstest.EmptyDSN(t))
	if err := models.Migrate(ctx, db); err != nil {
		t.Fatal(err)
	}
	if err := db.Exec("INSERT INTO schema_migrations (id) VALUES ('9999_from_the_future')").Error; err != nil {
		t.Fatal(err)
	}
	err := models.Migrate(ctx, db)
	if !errors.Is(err, models.ErrNewerDatabase) || !strings.Contains(err.Error(), "9999_from_the_future") {
		t.Fatalf("Migrate = %v, want the newer-database error naming the step", err)
	}
	status, err := models.MigrationStatus(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if last := status[len(status)-1]; last.ID != "9999_from_the_future" || !last.Applied {
		t.Errorf("status ends with %+v, want the unknown step as applied", last)
	}
}

// gormModels are the structs GORM reads and writes, one per table.
var gormModels = []any{
	&models.Setting{}, &models.Account{}, &models.User{}, &models.APIKey{}, &models.AuditEvent{},
	&models.Filesystem{}, &models.FirewallRuleset{}, &models.FabricPartition{},
	&models.Instance{}, &models.InstanceFilesystem{}, &models.InstanceRuleset{},
	&models.SSHKey{}, &models.CapacityLock{}, &models.AccountVersion{},
	&models.Session{},
	&models.Ticket{}, &models.TicketComment{}, &models.TicketActivity{}, &models.TicketAttachment{}, &models.TicketAttachmentContent{},
	&models.TicketAttachmentChunk{},
	&models.WebhookEndpoint{}, &models.WebhookEvent{}, &models.WebhookDelivery{}, &models.WebhookAttempt{},
	&models.IdempotencyKey{}, &models.AccountUsage{},
}

// The GORM structs describe the schema the migrations build: the tables,
// columns, types, keys and indexes AutoMigrate would create from them are
// the migrated ones (constraints aside, which GORM's tags do not carry
// here). A struct changed without a migration step, or a step without its
// struct change, fails here.
func TestStructsMatchSchema(t *testing.T) {
	ctx := context.Background()
	migrated := openRaw(t, modelstest.EmptyDSN(t))
	if err := models.Migrate(ctx, migrated); err != nil {
		t.Fatal(err)
	}
	fromStructs := openRaw(t, modelstest.EmptyDSN(t))
	if err := fromStructs.AutoMigrate(gormModels...); err != nil {
		t.Fatal(err)
	}
	diffSchemas(t, "structs", describeSchema(t, fromStructs, false),
		"migrations", describeSchema(t, migrated, false, "schema_migrations"))
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
				db, err := models.Open(ctx, tc.dsn(b))
				if err == nil {
					err = models.Migrate(ctx, db)
					closeDB(db)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
