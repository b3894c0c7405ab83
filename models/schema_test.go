package models_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gorm.io/gorm"

	"cloudplane/models"
	"cloudplane/models/database"
	"cloudplane/models/modelstest"
)

// schemaQueries describe a schema, one line per table, column, index or
// constraint, so that two databases can be compared line by line. The
// full description includes foreign keys and CHECK constraints, which
// GORM's AutoMigrate does not know; the shape one does not.
var schemaQueries = map[string]struct{ full, shape []string }{
	"sqlite": {
		full: []string{`SELECT type || ' ' || name || ': ' || sql FROM sqlite_master
			WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%'`},
		shape: []string{
			`SELECT m.name || '.' || c.name || ' ' || c.type || ' notnull=' || c."notnull" || ' pk=' || c.pk ||
				' default=' || coalesce(c.dflt_value, '-')
			FROM sqlite_master m, pragma_table_info(m.name) c WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%'`,
			`SELECT 'index ' || name || ': ' || sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL`,
		},
	},
	"postgres": {
		full: []string{pgColumns, pgIndexes,
			`SELECT conrelid::regclass::text || ' ' || conname || ': ' || pg_get_constraintdef(oid) FROM pg_constraint
			WHERE connamespace = current_schema()::regnamespace`},
		shape: []string{pgColumns, pgIndexes,
			`SELECT conrelid::regclass::text || ' ' || pg_get_constraintdef(oid) FROM pg_constraint
			WHERE connamespace = current_schema()::regnamespace AND contype IN ('p', 'u')`},
	},
}

const (
	pgColumns = `SELECT table_name || '.' || column_name || ' ' || data_type ||
		coalesce('(' || character_maximum_length || ')', '') || ' nullable=' || is_nullable ||
		' default=' || coalesce(column_default, '-')
		FROM information_schema.columns WHERE table_schema = current_schema()`
	pgIndexes = `SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema()`
)

var spaces = regexp.MustCompile(`\s+`)

// describeSchema returns db's schema description, sorted, whitespace
// normalised, without the lines naming the tables in skip.
func describeSchema(t *testing.T, db *gorm.DB, full bool, skip ...string) []string {
	t.Helper()
	q := schemaQueries[db.Name()]
	queries := q.shape
	if full {
		queries = q.full
	}
	var out []string
	for _, query := range queries {
		var lines []string
		if err := db.Raw(query).Scan(&lines).Error; err != nil {
			t.Fatalf("describe schema: %v", err)
		}
	line:
		for _, l := range lines {
			for _, s := range skip {
				if strings.Contains(l, s) {
					continue line
				}
			}
			out = append(out, strings.TrimSpace(spaces.ReplaceAllString(l, " ")))
		}
	}
	slices.Sort(out)
	return out
}

// The first step is the schema the last AutoMigrate release created,
// written down: a database that release made (the fixture's dump) and one
// this binary takes to 0001 must be alike, down to index names.
func TestInitialStepIsReleasedSchema(t *testing.T) {
	ctx := context.Background()
	released, _ := loadFixture(t, "at0001")
	fresh := openRaw(t, modelstest.EmptyDSN(t))
	if err := fresh.MigrateTo(ctx, "0001_initial"); err != nil {
		t.Fatal(err)
	}
	// schema_migrations gained applied_at; the upgrade test covers it.
	diffSchemas(t, "released", describeSchema(t, openRaw(t, released).Gorm(), true, "schema_migrations"),
		"0001_initial", describeSchema(t, fresh.Gorm(), true, "schema_migrations"))
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
	&models.IdempotencyKey{}, &models.AccountUsage{}, &models.MailMessage{}, &models.Membership{},
	&models.NotificationPreference{}, &models.Notification{}, &models.Invitation{},
	&models.Passkey{}, &models.PasskeyCeremony{},
	&models.SecondFactor{}, &models.RecoveryCode{}, &models.PendingSignIn{},
	&models.SSOIdentity{}, &models.SSODomain{}, &models.SSOLogin{}, &models.SSOConnect{},
	&models.Budget{}, &models.BudgetAlert{},
}

// The GORM structs describe the schema the migrations build: the tables,
// columns, types, keys and indexes AutoMigrate would create from them are
// the migrated ones (constraints aside, which GORM's tags do not carry
// here). A struct changed without a migration step, or a step without its
// struct change, fails here.
func TestStructsMatchSchema(t *testing.T) {
	ctx := context.Background()
	migrated := openRaw(t, modelstest.EmptyDSN(t))
	if err := migrated.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	fromStructs := openRaw(t, modelstest.EmptyDSN(t)).Gorm()
	if err := fromStructs.AutoMigrate(gormModels...); err != nil {
		t.Fatal(err)
	}
	diffSchemas(t, "structs", describeSchema(t, fromStructs, false),
		"migrations", describeSchema(t, migrated.Gorm(), false, "schema_migrations"))
}

// diffSchemas fails the test with the lines only one side has.
func diffSchemas(t *testing.T, wantName string, want []string, gotName string, got []string) {
	t.Helper()
	for _, l := range want {
		if !slices.Contains(got, l) {
			t.Errorf("only in %s: %s", wantName, l)
		}
	}
	for _, l := range got {
		if !slices.Contains(want, l) {
			t.Errorf("only in %s: %s", gotName, l)
		}
	}
}

// openRaw opens a database without migrating it.
var openRaw = modelstest.OpenDatabase

// fixtureFacts are what fixturegen printed when it filled a fixture:
// owner_email, account_id, api_key, filesystem_id, ruleset_id,
// instance_id, ticket_id and delivery_id.
type fixtureFacts map[string]string

// loadFixture creates a database from testdata/<at>/<backend>.sql, the
// dump of a database an older release made, and returns its DSN and facts.
func loadFixture(t *testing.T, at string) (string, fixtureFacts) {
	t.Helper()
	backend := modelstest.Backend()
	dump, err := os.ReadFile(filepath.Join("testdata", at, backend+".sql"))
	if err != nil {
		t.Fatal(err)
	}
	var facts fixtureFacts
	raw, err := os.ReadFile(filepath.Join("testdata", at, backend+".json"))
	if err == nil {
		err = json.Unmarshal(raw, &facts)
	}
	if err != nil {
		t.Fatal(err)
	}
	dsn := modelstest.EmptyDSN(t)
	// A pool of its own: the dump changes session settings (search_path,
	// foreign_keys) that must not leak into the test's connections.
	db, err := database.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sqlDB, _ := db.Gorm().DB()
	if _, err := sqlDB.Exec(sqlScript(string(dump))); err != nil {
		t.Fatalf("load %s/%s.sql: %v", at, backend, err)
	}
	return dsn, facts
}

// sqlScript drops psql's meta-commands (pg_dump's \restrict) from a dump.
func sqlScript(dump string) string {
	lines := strings.Split(dump, "\n")
	return strings.Join(slices.DeleteFunc(lines, func(l string) bool { return strings.HasPrefix(l, `\`) }), "\n")
}
