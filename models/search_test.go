package models_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// names lists the results as "kind name".
func names(r *models.SearchResults) []string {
	out := []string{}
	for _, x := range r.Results {
		out = append(out, x.Kind+" "+x.Name)
	}
	return out
}

func search(t *testing.T, f *ticketFixture, actor models.Actor, q string) []string {
	t.Helper()
	r, err := f.store.Search(f.ctx, actor, q)
	if err != nil {
		t.Fatalf("search %q: %v", q, err)
	}
	return names(r)
}

// Search finds the actor's objects of every kind by the start of their
// name, case-insensitively, and never another account's.
func TestSearchFindsOwnObjectsOnly(t *testing.T) {
	f := newTicketFixture(t)
	for _, a := range []models.Actor{f.owner, f.other} {
		u, err := f.store.User(f.ctx, a.UserID)
		if err != nil {
			t.Fatal(err)
		}
		modelstest.InsertFilesystem(t, f.store, u, "Prod-data", "us-east-1")
		if _, _, err := f.store.CreateSSHKey(f.ctx, a, models.CreateSSHKeyInput{Name: "prod-laptop"}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := f.store.CreateAPIKey(f.ctx, a, models.CreateAPIKeyInput{Name: "prod ci"}); err != nil {
			t.Fatal(err)
		}
		insertInstance(t, f.store, a.AccountID, "prod-train", models.InstanceActive)
		insertInstance(t, f.store, a.AccountID, "prod-gone", models.InstanceTerminated)
		f.clock.Advance(time.Second)
		f.incident(a, "Production is down")
		f.webhook(a, "https://hooks.example.com/prod")
	}
	want := []string{"instance prod-train", "filesystem Prod-data", "ssh_key prod-laptop", "api_key prod ci",
		"ticket Production is down", "webhook https://hooks.example.com/prod"}
	got := search(t, f, f.owner, "PROD")
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("owner found %q, want %q", got, want)
	}
	r, _ := f.store.Search(f.ctx, f.owner, "prod")
	for _, x := range r.Results {
		if x.AccountID != f.owner.AccountID {
			t.Fatalf("owner found %s %s of account %s", x.Kind, x.Name, x.AccountID)
		}
	}
	// A prefix, not a substring (but a webhook URL's substring): "data"
	// is inside "Prod-data" yet finds nothing; LIKE's wildcards are text.
	if got := search(t, f, f.owner, "data"); len(got) != 0 {
		t.Fatalf("search data found %q", got)
	}
	if got := search(t, f, f.owner, "pro%"); len(got) != 0 {
		t.Fatalf("search pro%% found %q", got)
	}
	// An id finds its object, in the actor's account only.
	other, _ := f.store.Search(f.ctx, f.other, "prod-train")
	if len(other.Results) != 1 {
		t.Fatalf("other's instance: %v", other.Results)
	}
	if got := search(t, f, f.owner, other.Results[0].ID); len(got) != 0 {
		t.Fatalf("owner found another account's instance by id: %q", got)
	}
	if got := search(t, f, f.other, other.Results[0].ID); fmt.Sprint(got) != "[instance prod-train]" {
		t.Fatalf("search by id found %q", got)
	}
}

// Support staff find accounts by their people's emails and tickets
// across accounts, but not the accounts' other objects.
func TestSearchSupport(t *testing.T) {
	f := newTicketFixture(t)
	f.incident(f.owner, "GPU missing")
	f.clock.Advance(time.Second)
	f.incident(f.other, "gpu slow")
	if _, _, err := f.store.CreateSSHKey(f.ctx, f.owner, models.CreateSSHKeyInput{Name: "gpu-key"}); err != nil {
		t.Fatal(err)
	}
	got := search(t, f, f.support, "gpu")
	if fmt.Sprint(got) != "[ticket GPU missing ticket gpu slow]" {
		t.Fatalf("support found %q", got)
	}
	r, err := f.store.Search(f.ctx, f.support, "OTHER@")
	if err != nil || len(r.Results) != 1 || r.Results[0].Kind != models.SearchAccount ||
		r.Results[0].ID != f.other.AccountID {
		t.Fatalf("support searching an email: %+v, %v", r, err)
	}
	// Owners do not find accounts by email, not even their own.
	if got := search(t, f, f.owner, "owner@"); len(got) != 0 {
		t.Fatalf("owner found %q", got)
	}
}

func TestSearchRefuses(t *testing.T) {
	f := newTicketFixture(t)
	_, err := f.store.Search(f.ctx, models.Actor{UserID: "x", Role: models.RoleOwner}, "a")
	wantCode(t, err, models.CodeForbidden)
	long := fmt.Sprintf("%0101d", 1)
	_, err = f.store.Search(f.ctx, f.owner, long)
	expectCode(t, err, models.CodeInvalidParameters, "q")
	r, err := f.store.Search(f.ctx, f.owner, "  ")
	if err != nil || len(r.Results) != 0 {
		t.Fatalf("empty query: %v, %v", r, err)
	}
}

func insertInstance(tb testing.TB, store *models.Store, accountID, name, status string) {
	tb.Helper()
	now := store.Now()
	in := models.Instance{ID: models.NewID(), AccountID: accountID, Name: name, RegionName: "us-east-1",
		InstanceTypeName: "gpu_1x_a10", Status: status, SSHKeyNames: []string{}, Tags: []models.InstanceTag{},
		CreatedAt: now, UpdatedAt: now}
	if err := store.DB().Create(&in).Error; err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkSearch100k searches an account holding 100,000 objects (20,000
// each of instances, filesystems, SSH keys, API keys and tickets) and
// 20,000 members, as its owner and as support staff, with queries matching
// thousands and none: names, ids, ticket numbers, subject words, parts of
// emails. The issue asks for an answer within 100 ms.
func BenchmarkSearch100k(b *testing.B) {
	ctx := context.Background()
	store := modelstest.Open(b)
	owner, _ := modelstest.Owner(b, store, "owner@example.com")
	support, err := store.CreateUser(ctx, models.OperatorActor,
		models.CreateUserInput{Email: "help@example.com", Password: "support password", Role: models.RoleSupport})
	if err != nil {
		b.Fatal(err)
	}
	instanceID, ticketID := fillSearch(b, store, owner, 20000)
	for _, c := range []struct {
		name  string
		actor models.Actor
		q     string
	}{
		{"owner/many", owner.Actor(), "train-01"},
		{"owner/none", owner.Actor(), "zzz"},
		{"owner/id", owner.Actor(), instanceID[:20]},
		{"owner/id-shared", owner.Actor(), instanceID[:8]}, // every object's id starts so
		{"owner/number", owner.Actor(), "#" + ticketID[24:]},
		{"owner/words", owner.Actor(), "gpu 01"},
		{"owner/words-none", owner.Actor(), "gpu zzz"},
		{"support/many", support.Actor(), "slow gpu 01"},
		{"support/email", support.Actor(), "owner@"},
		{"support/email-inside", support.Actor(), "ber-01"},
		{"support/email-none", support.Actor(), "zzz@"},
		{"support/words-none", support.Actor(), "gpu zzz"},
		{"support/number", support.Actor(), "#" + ticketID[24:]},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := store.Search(ctx, c.actor, c.q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// fillSearch inserts n objects of each searchable kind into owner's
// account, and n members of it (whose emails support searches), and
// returns the id of an instance and of a ticket.
func fillSearch(b *testing.B, store *models.Store, owner *models.User, n int) (string, string) {
	now, acc := store.Now(), *owner.AccountID
	instances, filesystems := make([]models.Instance, n), make([]models.Filesystem, n)
	keys, apiKeys, tickets := make([]models.SSHKey, n), make([]models.APIKey, n), make([]models.Ticket, n)
	for i := range n {
		instances[i] = models.Instance{ID: models.NewID(), AccountID: acc, Name: fmt.Sprintf("train-%05d", i),
			RegionName: "us-east-1", InstanceTypeName: "gpu_1x_a10", Status: models.InstanceActive,
			SSHKeyNames: []string{}, Tags: []models.InstanceTag{}, CreatedAt: now, UpdatedAt: now}
		filesystems[i] = models.Filesystem{ID: models.NewID(), AccountID: acc, Name: fmt.Sprintf("data-%05d", i),
			RegionName: "us-east-1", CreatedByUserID: owner.ID, CreatedAt: now, UpdatedAt: now}
		keys[i] = models.SSHKey{ID: models.NewID(), AccountID: acc, Name: fmt.Sprintf("laptop-%05d", i),
			PublicKey: "ssh-ed25519 AAAA", CreatedAt: now}
		apiKeys[i] = models.APIKey{ID: models.NewID(), AccountID: acc, UserID: owner.ID, Name: fmt.Sprintf("ci-%05d", i),
			Prefix: fmt.Sprintf("p%09d", i), Hash: fmt.Sprintf("h%09d", i), CreatedAt: now, Scope: models.ScopeFull}
		tickets[i] = models.Ticket{ID: models.NewID(), AccountID: acc, CreatedByUserID: owner.ID,
			Subject: fmt.Sprintf("Slow GPU %05d", i), Description: "slow", RequestType: models.TicketIncident,
			Status: "open", Source: "dashboard", CreatedAt: now, UpdatedAt: now}
	}
	users, members := make([]models.User, n), make([]models.Membership, n)
	for i := range n {
		users[i] = models.User{ID: models.NewID(), Email: fmt.Sprintf("member-%05d@example.com", i), PasswordHash: "x",
			Role: models.RoleOwner, Status: models.UserActive, CreatedAt: now, UpdatedAt: now}
		members[i] = models.Membership{AccountID: acc, UserID: users[i].ID, Role: models.RoleMember, CreatedAt: now, UpdatedAt: now}
	}
	for _, rows := range []any{instances, filesystems, keys, apiKeys, tickets, users, members} {
		if err := store.DB().CreateInBatches(rows, 500).Error; err != nil {
			b.Fatal(err)
		}
	}
	// Fresh statistics, as a live database has them.
	if err := store.DB().Exec("ANALYZE").Error; err != nil {
		b.Fatal(err)
	}
	return instances[n/2].ID, tickets[n/2].ID
}
