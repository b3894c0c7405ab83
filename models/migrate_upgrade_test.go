package models_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// A database the last AutoMigrate release made, with data, upgrades: its
// rows read back through the Store, and its schema ends up the same as a
// fresh database's.
func TestUpgradeFromRelease0001(t *testing.T) {
	ctx := context.Background()
	dsn, facts := loadFixture(t, "at0001")
	store := modelstest.OpenAt(t, dsn) // migrates
	assertCurrent(t, store)
	status, err := store.Database().MigrationStatus(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if status[0].AppliedAt != nil || status[1].AppliedAt == nil {
		t.Errorf("status %+v: want 0001 recognised as applied before times were kept, 0002 timed", status)
	}

	actor, err := store.Authenticate(ctx, facts["api_key"])
	if err != nil || actor.AccountID != facts["account_id"] {
		t.Fatalf("authenticate the fixture's key: %+v, %v", actor, err)
	}
	// The account's user is its first owner, and their key stays theirs,
	// acting as an owner; support staff belong to no account.
	members, err := store.Members(ctx, actor, "")
	if err != nil || len(members) != 1 || members[0].Email != facts["owner_email"] || members[0].Role != models.RoleOwner {
		t.Fatalf("members after the upgrade: %+v, %v", members, err)
	}
	if actor.Role != models.RoleOwner || actor.UserID != members[0].UserID {
		t.Fatalf("the fixture's key acts as %+v, want its owner", actor)
	}
	var staffMemberships int64
	if err := store.DB().Table("memberships").Joins("JOIN users ON users.id = memberships.user_id").
		Where("users.role = ?", models.RoleSupport).Count(&staffMemberships).Error; err != nil || staffMemberships != 0 {
		t.Fatalf("support staff memberships: %d, %v", staffMemberships, err)
	}
	fss, err := store.Filesystems(ctx, actor)
	if err != nil || len(fss) != 2 {
		t.Fatalf("filesystems: %d, %v", len(fss), err)
	}
	inst, err := store.Instance(ctx, actor, facts["instance_id"])
	if err != nil || len(inst.Mounts) != 1 || len(inst.RulesetIDs) != 1 {
		t.Fatalf("instance: %+v, %v", inst, err)
	}
	ticket, err := store.Ticket(ctx, actor, facts["ticket_id"])
	if err != nil || len(ticket.Comments) != 3 || ticket.Status != models.TicketOpen {
		t.Fatalf("ticket: %+v, %v", ticket, err)
	}
	// Its comment counts start from the comments the release had.
	bytes := 0
	for _, c := range ticket.Comments {
		bytes += len(c.Body)
	}
	if ticket.CommentRows != 3 || ticket.CommentBytes != int64(bytes) || ticket.DescriptionAuthor == nil ||
		*ticket.DescriptionAuthor != ticket.Comments[0].Author {
		t.Fatalf("ticket counts after the upgrade: %d rows, %d bytes (want %d), author %v",
			ticket.CommentRows, ticket.CommentBytes, bytes, ticket.DescriptionAuthor)
	}
	// It waits for support since the customer's first message after
	// support's last reply (step 0027 fills this in from the comments).
	var want *time.Time
	for _, c := range ticket.Comments {
		switch {
		case c.Author == "support":
			want = nil
		case want == nil:
			at := c.CreatedAt
			want = &at
		}
	}
	if (want == nil) != (ticket.WaitingSince == nil) || want != nil && !want.Equal(*ticket.WaitingSince) {
		t.Fatalf("ticket waits since %v, want %v (comments %+v)", ticket.WaitingSince, want, ticket.Comments)
	}
	delivery, err := store.WebhookDelivery(ctx, actor, facts["delivery_id"])
	if err != nil || len(delivery.AttemptLog) != 1 {
		t.Fatalf("delivery: %+v, %v", delivery, err)
	}
	// The single endpoint of old keeps receiving every ticket event, and
	// the account may add more.
	endpoint, err := store.Webhook(ctx, actor, "")
	if err != nil || !slices.Equal(endpoint.EventTypes, models.TicketEventTypes) || endpoint.PreviousSecret != "" {
		t.Fatalf("endpoint: %+v, %v", endpoint, err)
	}
	if _, _, err := store.CreateWebhookEndpoint(ctx, actor, models.SetWebhookInput{URL: "https://hooks.example.com/second"}); err != nil {
		t.Fatalf("a second endpoint: %v", err)
	}
	// The quota counts start from the rows the release had.
	assertUsageMatchesRows(t, store.DB())
	events, err := store.AuditEvents(ctx, actor, models.AuditEventsInput{})
	if err != nil || len(events.Events) < 10 {
		t.Fatalf("audit events: %+v, %v", events, err)
	}
	// Events recorded before actors' roles were get the one their actor
	// implies.
	for _, ev := range events.Events {
		if ev.ActorLRN != nil && (ev.ActorRole == nil || *ev.ActorRole == "") {
			t.Fatalf("event %s by %s has no role after the upgrade", ev.ID, *ev.ActorLRN)
		}
		if ev.ActorLRN != nil && *ev.ActorLRN == "lrn:cloud:operator:cli" && *ev.ActorRole != "operator" {
			t.Fatalf("the operator's event %s reads role %q", ev.ID, *ev.ActorRole)
		}
	}
	owner, err := store.UserByEmail(ctx, facts["owner_email"])
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := store.SignIn(ctx, models.SignInInput{Email: owner.Email, Password: "correct horse battery", SourceIP: "192.0.2.8"}); err != nil {
		t.Fatalf("sign in: %v", err)
	}
	// The upgraded database takes writes under its new constraints.
	if _, err := store.DeleteFilesystem(ctx, actor, facts["filesystem_id"]); err == nil {
		t.Error("deleted a filesystem mounted on a booting instance")
	}

	fresh := modelstest.OpenAt(t, modelstest.EmptyDSN(t))
	diffSchemas(t, "fresh", describeSchema(t, fresh.DB(), true), "upgraded", describeSchema(t, store.DB(), true))
}

// Rows that break the new constraints stop the upgrade with the name of
// the constraint, and leave the database as it was, at 0001; once they
// are fixed, the upgrade goes through.
func TestUpgradeRefusesBrokenRows(t *testing.T) {
	cases := []struct {
		name, breakSQL, fixSQL, want string
	}{
		{"orphan mount", "UPDATE instance_filesystems SET filesystem_id = 'gone'",
			"DELETE FROM instance_filesystems WHERE filesystem_id = 'gone'", "filesystems"},
		{"unknown status", "UPDATE accounts SET status = 'frozen'",
			"UPDATE accounts SET status = 'inactive' WHERE status = 'frozen'", "chk_accounts_status"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			dsn, _ := loadFixture(t, "at0001")
			db := openRaw(t, dsn)
			if err := db.Gorm().Exec(tc.breakSQL).Error; err != nil {
				t.Fatal(err)
			}
			err := db.Migrate(ctx)
			if err == nil || !strings.Contains(err.Error(), "0002_constraints") || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Migrate = %v, want 0002 refused naming %q", err, tc.want)
			}
			t.Log(err)
			status, err := db.MigrationStatus(ctx)
			if err != nil || !status[0].Applied || status[1].Applied {
				t.Fatalf("after the refusal: %+v, %v; want 0001 applied and 0002 pending", status, err)
			}
			if err := db.Gorm().Exec(tc.fixSQL).Error; err != nil {
				t.Fatal(err)
			}
			if err := db.Migrate(ctx); err != nil {
				t.Fatalf("after fixing the rows: %v", err)
			}
		})
	}
}

// The constraints hold on both databases once migrated: a mount of a
// filesystem that does not exist, or a status outside the set, is refused.
func TestConstraintsAreEnforced(t *testing.T) {
	store := modelstest.Open(t)
	owner, _ := modelstest.Owner(t, store, "owner@example.com")
	inst := modelstest.InsertInstance(t, store, models.Instance{AccountID: *owner.AccountID, Status: models.InstanceActive})
	db := store.DB()
	for _, stmt := range []string{
		"INSERT INTO instance_filesystems (instance_id, filesystem_id, mount_point) VALUES ('" + inst.ID + "', 'missing', '/m')",
		"UPDATE instances SET status = 'exploded' WHERE id = '" + inst.ID + "'",
		"INSERT INTO sessions (id, token_hash, user_id, csrf_token, flash, source_ip, created_at, last_seen_at)" +
			" VALUES ('s', 'h', 'nobody', 'c', '', '', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)",
	} {
		if err := db.Exec(stmt).Error; err == nil {
			t.Errorf("%s: accepted", stmt)
		}
	}
}

// assertCurrent checks that the store's database has run every step this
// binary knows and no other.
func assertCurrent(t *testing.T, store *models.Store) {
	t.Helper()
	status, err := store.Database().MigrationStatus(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range status {
		if !st.Applied || st.Unknown {
			t.Errorf("step %+v: want every known step applied, none unknown", st)
		}
	}
}
