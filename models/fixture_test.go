package models_test

import (
	"context"
	"testing"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// fixture is a store on a fresh database with a controllable clock and two
// accounts, alice's and bob's, each holding an SSH key named "key".
type fixture struct {
	store      *models.Store
	dsn        string // the database, for other replicas
	clock      *modelstest.Clock
	cfg        models.Config
	alice, bob models.Actor
}

type fixtureOption func(t *testing.T, cfg *models.Config)

// withCapacity sets the capacity as the operator's flag would.
func withCapacity(spec string) fixtureOption {
	return func(t *testing.T, cfg *models.Config) {
		t.Helper()
		c, err := models.ParseCapacity(spec)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Capacity = c
	}
}

func newFixture(t *testing.T, opts ...fixtureOption) *fixture {
	t.Helper()
	cfg := models.DefaultConfig()
	cfg.PasswordCost = 4
	for _, o := range opts {
		o(t, &cfg)
	}
	clock := modelstest.NewClock()
	dsn := modelstest.DSN(t)
	store := modelstest.OpenAt(t, dsn, models.WithClock(clock.Now), models.WithConfig(cfg))
	f := &fixture{store: store, dsn: dsn, clock: clock, cfg: cfg}
	f.alice = f.owner(t, "alice@example.com")
	f.bob = f.owner(t, "bob@example.com")
	return f
}

// owner adds an account with an SSH key named "key" and returns its actor.
func (f *fixture) owner(t *testing.T, email string) models.Actor {
	t.Helper()
	u, _ := modelstest.Owner(t, f.store, email)
	a := u.Actor()
	if _, _, err := f.store.CreateSSHKey(context.Background(), a, models.CreateSSHKeyInput{Name: "key"}); err != nil {
		t.Fatal(err)
	}
	return a
}

// launchInput asks for quantity gpu_1x_a10 in region with the key "key".
func launchInput(region string, quantity int) models.LaunchInstancesInput {
	return models.LaunchInstancesInput{RegionName: region, InstanceTypeName: "gpu_1x_a10",
		SSHKeyNames: []string{"key"}, Quantity: &quantity}
}

func (f *fixture) launch(t *testing.T, actor models.Actor, in models.LaunchInstancesInput) []string {
	t.Helper()
	ids, err := f.store.LaunchInstances(context.Background(), actor, in)
	if err != nil {
		t.Fatalf("launch: %v", err)
	}
	return ids
}

func (f *fixture) instance(t *testing.T, actor models.Actor, id string) *models.InstanceDetail {
	t.Helper()
	d, err := f.store.Instance(context.Background(), actor, id)
	if err != nil {
		t.Fatalf("instance %s: %v", id, err)
	}
	return d
}

// filesystem inserts a filesystem row directly: its endpoints are built
// elsewhere, and launches only read the table.
func (f *fixture) filesystem(t *testing.T, owner models.Actor, name, region string) string {
	t.Helper()
	return modelstest.InsertFilesystem(t, f.store, f.user(t, owner), name, region)
}

// ruleset inserts a firewall ruleset row directly, like filesystem.
func (f *fixture) ruleset(t *testing.T, owner models.Actor, name, region string) string {
	t.Helper()
	return modelstest.InsertRuleset(t, f.store, f.user(t, owner), name, region)
}

func (f *fixture) user(t *testing.T, a models.Actor) *models.User {
	t.Helper()
	u, err := f.store.User(context.Background(), a.UserID)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// events returns the account's audit events about resource, oldest first.
func (f *fixture) events(t *testing.T, owner models.Actor, resource string) []models.AuditEvent {
	t.Helper()
	var evs []models.AuditEvent
	err := f.store.DB().Where("account_id = ? AND resource_name = ?", owner.AccountID, resource).
		Order("event_time, id").Find(&evs).Error
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

func isSQLite() bool { return modelstest.Backend() == "sqlite" }

// wantCode fails unless err carries code.
func wantCode(t *testing.T, err error, code models.Code) {
	t.Helper()
	if got := models.ErrorCode(err); err == nil || got != code {
		t.Fatalf("error %v (code %s), want %s", err, got, code)
	}
}
