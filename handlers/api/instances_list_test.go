package api

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// oldInstanceList is the list's body as ok wrote it before the list was
// appended by hand: encoding/json over newInstancesJSON.
func oldInstanceList(t testing.TB, list []models.InstanceDetail) []byte {
	t.Helper()
	body, err := json.Marshal(dataBody[[]instanceJSON]{Data: newInstancesJSON(list)})
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// The appended list is byte for byte what encoding/json wrote, whatever
// the strings, statuses, catalogue names and nil or empty slices.
func TestInstanceListJSONMatchesEncodingJSON(t *testing.T) {
	until := time.Date(2026, 11, 27, 6, 0, 0, 0, time.UTC)
	base := func(status string) models.InstanceDetail {
		return models.InstanceDetail{Instance: models.Instance{ID: models.NewID(), Name: "n", RegionName: "us-east-1",
			InstanceTypeName: "gpu_8x_h100_sxm5", Status: status, IP: "198.18.0.1", PrivateIP: "10.0.0.1",
			Hostname: "h", SSHKeyNames: []string{"key"}, StatusUntil: &until},
			Mounts: []models.InstanceMount{}, RulesetIDs: []string{}}
	}
	var list []models.InstanceDetail
	for _, status := range []string{models.InstanceBooting, models.InstanceActive, models.InstanceUnhealthy,
		models.InstanceTerminating, models.InstanceTerminated, "unknown"} {
		list = append(list, base(status))
	}
	odd := base(models.InstanceActive)
	odd.RegionName, odd.InstanceTypeName = "nowhere", "no_such_type" // zero values
	odd.SSHKeyNames, odd.Tags = nil, nil                             // null, and [] as newInstanceJSON has it
	list = append(list, odd)
	for _, s := range trickyStrings {
		d := base(models.InstanceActive)
		d.Name, d.Hostname, d.IP, d.PrivateIP = s, s, s, s
		d.SSHKeyNames = []string{s, s}
		d.Tags = []models.InstanceTag{{Key: s, Value: s}, {Key: "k", Value: ""}}
		d.Mounts = []models.InstanceMount{{FilesystemID: s, FilesystemName: s, MountPoint: s}, {FilesystemName: "b"}}
		d.RulesetIDs = []string{s, "r"}
		list = append(list, d)
	}
	for _, n := range []int{0, 1, len(list)} {
		if got, want := appendInstanceList(nil, list[:n]), oldInstanceList(t, list[:n]); !bytes.Equal(got, want) {
			t.Fatalf("%d instances:\n got %s\nwant %s", n, got, want)
		}
	}
}

// instanceListAccount is an account whose instances have mounts, rulesets,
// tags and unicode names, on a store whose clock the test moves.
type instanceListAccount struct {
	store *models.Store
	clock *modelstest.Clock
	cfg   models.Config
	owner models.Actor
}

func newInstanceListAccount(t *testing.T) *instanceListAccount {
	t.Helper()
	ctx := context.Background()
	clock := modelstest.NewClock()
	cfg := modelstest.Config()
	store := modelstest.Open(t, models.WithClock(clock.Now), models.WithConfig(cfg))
	u, _ := modelstest.Owner(t, store, "instances@example.com")
	a := &instanceListAccount{store: store, clock: clock, cfg: cfg, owner: u.Actor()}
	if _, _, err := store.CreateSSHKey(ctx, a.owner, models.CreateSSHKeyInput{Name: "clé <1>"}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"data", "zeta-2"} {
		if _, err := store.CreateFilesystem(ctx, a.owner, models.CreateFilesystemInput{Name: name, Region: "us-east-1"}); err != nil {
			t.Fatal(err)
		}
	}
	return a
}

// launch launches one instance named name with in's extras and returns
// its id.
func (a *instanceListAccount) launch(t *testing.T, name string, in models.LaunchInstancesInput) string {
	t.Helper()
	one := 1
	in.RegionName, in.InstanceTypeName, in.SSHKeyNames, in.Name, in.Quantity = "us-east-1", "gpu_1x_a10", []string{"clé <1>"}, name, &one
	ids, err := a.store.LaunchInstances(context.Background(), a.owner, in)
	if err != nil {
		t.Fatalf("launch %s: %v", name, err)
	}
	return ids[0]
}

// check asserts that the cached, appended list is the old encoding of the
// list read afresh, and returns the fresh list.
func (a *instanceListAccount) check(t *testing.T, state string) []models.InstanceDetail {
	t.Helper()
	ctx := context.Background()
	got, err := a.store.InstancesEncoded(ctx, a.owner, instanceListJSON)
	if err != nil {
		t.Fatal(err)
	}
	list, err := a.store.Instances(ctx, a.owner)
	if err != nil {
		t.Fatal(err)
	}
	if want := oldInstanceList(t, list); !bytes.Equal(got, want) {
		t.Fatalf("%s:\n got %s\nwant %s", state, got, want)
	}
	again, err := a.store.InstancesEncoded(ctx, a.owner, instanceListJSON)
	if err != nil || !bytes.Equal(again, got) {
		t.Fatalf("%s: read again: %v\n%s", state, err, again)
	}
	return list
}

// Across an instance's life the cached answer is the old encoding of a
// fresh read, the clock alone moving it from booting to active and from
// terminating to gone.
func TestInstanceListCachedAcrossStates(t *testing.T) {
	ctx := context.Background()
	a := newInstanceListAccount(t)
	a.check(t, "no instances")

	rs, err := a.store.CreateFirewallRuleset(ctx, a.owner, models.CreateFirewallRulesetInput{Name: "web", Region: "us-east-1", Rules: []models.FirewallRule{}})
	if err != nil {
		t.Fatal(err)
	}
	mounted := a.launch(t, "élan 🚀 <x>", models.LaunchInstancesInput{FileSystemNames: []string{"data", "zeta-2"},
		Tags: []models.InstanceTag{{Key: "team", Value: "ml & <ops> é"}}, FirewallRulesets: []models.RulesetRef{{ID: rs.ID}}})
	if list := a.check(t, "booting"); len(list) != 1 || list[0].Status != models.InstanceBooting ||
		len(list[0].Mounts) != 2 || len(list[0].RulesetIDs) != 1 || len(list[0].Tags) != 1 {
		t.Fatalf("booting: %+v", list)
	}
	a.clock.Advance(a.cfg.InstanceBootTime - time.Microsecond)
	if list := a.check(t, "just before the boot time"); list[0].Status != models.InstanceBooting {
		t.Fatalf("active early: %+v", list[0].Instance)
	}
	a.clock.Advance(time.Microsecond)
	if list := a.check(t, "at the boot time"); list[0].Status != models.InstanceActive {
		t.Fatalf("still booting: %+v", list[0].Instance)
	}

	plain := a.launch(t, "", models.LaunchInstancesInput{})
	if _, err := a.store.UpdateInstance(ctx, a.owner, plain, models.UpdateInstanceInput{Name: ptr("renamed \u2028")}); err != nil {
		t.Fatal(err)
	}
	if list := a.check(t, "renamed"); len(list) != 2 || list[1].Name != "renamed \u2028" {
		t.Fatalf("renamed: %+v", list)
	}
	if _, err := a.store.TerminateInstances(ctx, a.owner, models.InstanceIDsInput{InstanceIDs: []string{mounted}}); err != nil {
		t.Fatal(err)
	}
	if list := a.check(t, "terminating"); len(list) != 2 || list[0].Status != models.InstanceTerminating {
		t.Fatalf("terminating: %+v", list)
	}
	a.clock.Advance(a.cfg.InstanceTerminateTime - time.Microsecond)
	a.check(t, "just before the terminate time")
	a.clock.Advance(time.Microsecond)
	if list := a.check(t, "terminated"); len(list) != 1 || list[0].ID != plain {
		t.Fatalf("terminated and gone: %+v", list)
	}
	a.clock.Advance(a.cfg.InstanceBootTime)
	if _, err := a.store.RestartInstances(ctx, a.owner, models.InstanceIDsInput{InstanceIDs: []string{plain}}); err != nil {
		t.Fatal(err)
	}
	if list := a.check(t, "restarted"); list[0].Status != models.InstanceBooting {
		t.Fatalf("restarted: %+v", list[0].Instance)
	}
}

func ptr[T any](v T) *T { return &v }

// BenchmarkInstanceListJSON encodes eight instances both ways: "old" as
// ok did (encoding/json over newInstancesJSON), "appended" by hand.
//
//	go test ./handlers/api -run '^$' -bench InstanceListJSON
func BenchmarkInstanceListJSON(b *testing.B) {
	until := time.Date(2026, 11, 27, 6, 0, 0, 0, time.UTC)
	list := make([]models.InstanceDetail, 8)
	for i := range list {
		list[i] = models.InstanceDetail{Instance: models.Instance{ID: models.NewID(), Name: "trainer", RegionName: "us-east-1",
			InstanceTypeName: "gpu_1x_a10", Status: models.InstanceActive, IP: "198.18.0.1", PrivateIP: "10.0.0.1",
			Hostname: "198-18-0-1", SSHKeyNames: []string{"key"}, Tags: []models.InstanceTag{{Key: "team", Value: "ml"}},
			StatusUntil: &until}, Mounts: []models.InstanceMount{}, RulesetIDs: []string{}}
		if i < 2 {
			list[i].Mounts = []models.InstanceMount{{FilesystemID: models.NewID(), FilesystemName: "data", MountPoint: "/home/ubuntu/data"}}
			list[i].RulesetIDs = []string{models.NewID()}
		}
	}
	b.Run("old", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			oldInstanceList(b, list)
		}
	})
	b.Run("appended", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			encodeInstanceList(list)
		}
	})
}
