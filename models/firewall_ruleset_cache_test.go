package models_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// rulesetNamesEncoding encodes a ruleset list as its names, each with its
// rules' descriptions and its instance ids.
var rulesetNamesEncoding = models.NewListEncoding(describeRulesets)

func describeRulesets(list []models.FirewallRulesetView) []byte {
	var out []string
	for _, r := range list {
		var rules []string
		for _, rule := range r.Rules {
			rules = append(rules, rule.Description)
		}
		out = append(out, fmt.Sprintf("%s%v%v", r.Name, rules, r.InstanceIDs))
	}
	return []byte(strings.Join(out, ","))
}

// readRulesets reads the list as the dashboard does (a copy) and as the
// API does (the cached encoding), checks both show the same, and returns
// it described (describeRulesets).
func readRulesets(t *testing.T, store *models.Store, actor models.Actor) string {
	t.Helper()
	list, err := store.FirewallRulesets(context.Background(), actor)
	if err != nil {
		t.Fatal(err)
	}
	encoded, err := store.FirewallRulesetsEncoded(context.Background(), actor, rulesetNamesEncoding)
	if err != nil {
		t.Fatal(err)
	}
	if copied := string(describeRulesets(list)); copied != string(encoded) {
		t.Fatalf("the copy shows %q, the encoding %q", copied, encoded)
	}
	return string(encoded)
}

func rulesOf(descriptions ...string) []models.FirewallRule {
	out := []models.FirewallRule{}
	for _, d := range descriptions {
		out = append(out, models.FirewallRule{Protocol: models.ProtocolTCP, PortRange: []int{22, 22},
			SourceNetwork: "0.0.0.0/0", Description: d})
	}
	return out
}

// The list is cached per account but never served stale: every kind of
// change to what it shows, made by this store or by another replica on the
// same database, is seen by the next read of either.
func TestFirewallRulesetListIsNeverStale(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	here := f.store
	there := modelstest.OpenAt(t, f.dsn, models.WithClock(f.clock.Now), models.WithConfig(f.cfg))
	actor := f.alice
	expect := func(want string) {
		t.Helper()
		for i, store := range []*models.Store{here, here, there, there} { // twice: the second read is a cache hit
			if got := readRulesets(t, store, actor); got != want {
				t.Fatalf("read %d: listed %q, want %q", i, got, want)
			}
		}
	}
	expect("")

	a, err := there.CreateFirewallRuleset(ctx, actor, models.CreateFirewallRulesetInput{Name: "a", Region: "us-east-1", Rules: rulesOf("ssh")})
	if err != nil {
		t.Fatal(err)
	}
	expect("a[ssh][]")
	name := "b"
	if _, err := here.UpdateFirewallRuleset(ctx, actor, a.ID, models.UpdateFirewallRulesetInput{Name: &name}); err != nil {
		t.Fatal(err)
	}
	expect("b[ssh][]")
	rules := rulesOf("ssh", "web")
	if _, err := there.UpdateFirewallRuleset(ctx, actor, a.ID, models.UpdateFirewallRulesetInput{Rules: &rules}); err != nil {
		t.Fatal(err)
	}
	expect("b[ssh web][]")

	in := launchInput("us-east-1", 1)
	in.FirewallRulesets = []models.RulesetRef{{ID: a.ID}}
	inst := f.launch(t, actor, in)[0]
	expect("b[ssh web][" + inst + "]")
	// The global ruleset is not in the list: changing it changes nothing.
	global := rulesOf("global")
	if _, err := there.UpdateGlobalFirewallRuleset(ctx, actor, models.UpdateGlobalRulesetInput{Rules: &global}); err != nil {
		t.Fatal(err)
	}
	expect("b[ssh web][" + inst + "]")

	// A terminating instance is listed until its time is up, then leaves
	// the list with no write at all.
	if _, err := there.TerminateInstances(ctx, actor, models.InstanceIDsInput{InstanceIDs: []string{inst}}); err != nil {
		t.Fatal(err)
	}
	expect("b[ssh web][" + inst + "]")
	f.clock.Advance(f.cfg.InstanceTerminateTime)
	expect("b[ssh web][]")

	if _, err := here.DeleteFirewallRuleset(ctx, actor, a.ID, models.Precondition{}); err != nil {
		t.Fatal(err)
	}
	expect("")
}

// newRulesetFixture is a fixture whose alice has a ruleset "r" of one
// rule, "ssh".
func newRulesetFixture(t *testing.T) (*fixture, *models.FirewallRulesetView) {
	t.Helper()
	f := newFixture(t)
	r, err := f.store.CreateFirewallRuleset(context.Background(), f.alice,
		models.CreateFirewallRulesetInput{Name: "r", Region: "us-east-1", Rules: rulesOf("ssh")})
	if err != nil {
		t.Fatal(err)
	}
	return f, r
}

// A list showing terminating instances is cached, but only until the
// first of them ends: each leaves at its own time, read from the cache in
// between.
func TestFirewallRulesetListExpiresWhenATerminatingInstanceEnds(t *testing.T) {
	f, r := newRulesetFixture(t)
	actor := f.alice
	var ids []string
	for _, d := range []time.Duration{2 * time.Minute, time.Minute, 0} {
		inst := models.Instance{AccountID: actor.AccountID, Status: models.InstanceActive}
		if d > 0 {
			until := f.store.Now().Add(d)
			inst.Status, inst.StatusUntil = models.InstanceTerminating, &until
		}
		inst.CreatedAt = f.store.Now().Add(time.Duration(len(ids)) * time.Second) // listed in this order
		ids = append(ids, modelstest.InsertInstance(t, f.store, inst).ID)
	}
	expect := func(want ...string) {
		t.Helper()
		if got, want := readRulesets(t, f.store, actor), fmt.Sprintf("r[ssh]%v", want); got != want {
			t.Fatalf("listed %q, want %q", got, want)
		}
	}
	for _, id := range ids {
		modelstest.Attach(t, f.store, id, r.ID)
	}
	expect(ids...)
	cached := func(want ...string) {
		t.Helper()
		if n := countQueries(t, f.store, func() { expect(want...) }); n != 0 {
			t.Fatalf("an unchanged, unexpired list took %d GORM queries", n)
		}
	}
	cached(ids...)
	f.clock.Advance(time.Minute - time.Microsecond)
	cached(ids...)
	f.clock.Advance(time.Microsecond) // the second instance's end, exactly
	expect(ids[0], ids[2])
	cached(ids[0], ids[2])
	f.clock.Advance(time.Minute)
	expect(ids[2])
	f.clock.Advance(time.Hour)
	cached(ids[2]) // nothing terminating left: no expiry
}

// The dashboard's list is the caller's: changing its rules, ports or
// instance ids changes no later read.
func TestFirewallRulesetListIsACopy(t *testing.T) {
	ctx := context.Background()
	f, r := newRulesetFixture(t)
	actor := f.alice
	inst := modelstest.InsertInstance(t, f.store, models.Instance{AccountID: actor.AccountID, Status: models.InstanceActive})
	modelstest.Attach(t, f.store, inst.ID, r.ID)
	for range 2 { // from the database, then from the cache
		list, err := f.store.FirewallRulesets(ctx, actor)
		if err != nil || len(list) != 1 {
			t.Fatalf("listed %+v, %v", list, err)
		}
		got := list[0]
		if got.Name != "r" || got.Rules[0].Description != "ssh" || got.Rules[0].PortRange[1] != 22 || got.InstanceIDs[0] != inst.ID {
			t.Fatalf("listed %+v", got)
		}
		got.Name, got.Rules[0].Description, got.Rules[0].PortRange[1], got.InstanceIDs[0] = "x", "x", 0, "x"
		list[0].Rules = append(list[0].Rules, models.FirewallRule{})
	}
}

// Many readers on two replicas while writers change rulesets: once a write
// has returned, every read from either replica shows it.
func TestFirewallRulesetListUnderConcurrentWrites(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	stores := []*models.Store{f.store, modelstest.OpenAt(t, f.dsn, models.WithClock(f.clock.Now), models.WithConfig(f.cfg))}
	actor := f.alice
	const writers, writes, readers = 4, 8, 8
	ids := make([]string, writers)
	for w := range ids {
		r, err := f.store.CreateFirewallRuleset(ctx, actor, models.CreateFirewallRulesetInput{Name: fmt.Sprintf("w%d-0", w), Region: "us-east-1", Rules: rulesOf()})
		if err != nil {
			t.Fatal(err)
		}
		ids[w] = r.ID
	}
	// shows reports whether both reads of the list, the copy and the
	// encoding, show the ruleset by that name.
	shows := func(store *models.Store, id, name string) (bool, error) {
		list, err := store.FirewallRulesets(ctx, actor)
		if err != nil {
			return false, err
		}
		encoded, err := store.FirewallRulesetsEncoded(ctx, actor, rulesetNamesEncoding)
		if err != nil {
			return false, err
		}
		for _, r := range list {
			if r.ID == id {
				return r.Name == name && strings.Contains(","+string(encoded), ","+name+"["), nil
			}
		}
		return false, nil
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, writers+readers)
	for r := range readers {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				if _, err := shows(stores[r%2], ids[r%writers], ""); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	var writersDone sync.WaitGroup
	for w := range writers {
		writersDone.Go(func() {
			for n := 1; n <= writes; n++ {
				name := fmt.Sprintf("w%d-%d", w, n)
				if _, err := stores[n%2].UpdateFirewallRuleset(ctx, actor, ids[w], models.UpdateFirewallRulesetInput{Name: &name}); err != nil {
					errs <- err
					return
				}
				for _, store := range stores {
					ok, err := shows(store, ids[w], name)
					if err != nil {
						errs <- err
						return
					}
					if !ok {
						errs <- fmt.Errorf("after renaming to %s a read shows an older name", name)
						return
					}
				}
			}
		})
	}
	writersDone.Wait()
	close(done)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
