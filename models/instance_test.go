package models_test

import (
	"context"
	"net/netip"
	"strings"
	"testing"

	"cloudplane/models"
)

// An instance boots, becomes active on the clock, restarts, terminates and
// ends terminated, each write recorded once, with no job advancing it.
func TestInstanceLifecycle(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	in := launchInput("us-east-1", 1)
	in.Name = "trainer"
	in.Tags = []models.InstanceTag{{Key: "team", Value: "ml"}}
	id := f.launch(t, f.alice, in)[0]

	d := f.instance(t, f.alice, id)
	if d.Status != models.InstanceBooting || d.Name != "trainer" || d.SSHKeyNames[0] != "key" ||
		len(d.Tags) != 1 || d.Tags[0].Key != "team" {
		t.Fatalf("launched %+v", d.Instance)
	}
	checkAddresses(t, d)
	if a := d.Actions(); a.Restart.Available || a.Restart.ReasonCode != models.ReasonNotLaunched || !a.Terminate.Available {
		t.Fatalf("booting actions %+v", a)
	}
	_, err := f.store.RestartInstances(ctx, f.alice, models.InstanceIDsInput{InstanceIDs: []string{id}})
	wantCode(t, err, models.CodeConflict)

	f.clock.Advance(f.cfg.InstanceBootTime - 1)
	if d := f.instance(t, f.alice, id); d.Status != models.InstanceBooting {
		t.Fatalf("active before the boot time: %s", d.Status)
	}
	f.clock.Advance(1)
	if d := f.instance(t, f.alice, id); d.Status != models.InstanceActive || !d.Actions().Restart.Available {
		t.Fatalf("after the boot time: %s %+v", d.Status, d.Actions())
	}

	restarted, err := f.store.RestartInstances(ctx, f.alice, models.InstanceIDsInput{InstanceIDs: []string{id}})
	if err != nil || restarted[0].Status != models.InstanceBooting {
		t.Fatalf("restart: %v %+v", err, restarted)
	}
	f.clock.Advance(f.cfg.InstanceBootTime)

	terminated, err := f.store.TerminateInstances(ctx, f.alice, models.InstanceIDsInput{InstanceIDs: []string{id}})
	if err != nil || terminated[0].Status != models.InstanceTerminating {
		t.Fatalf("terminate: %v %+v", err, terminated)
	}
	if a := terminated[0].Actions(); a.Terminate.Available || a.Restart.ReasonCode != models.ReasonTerminating {
		t.Fatalf("terminating actions %+v", a)
	}
	if list, _ := f.store.Instances(ctx, f.alice); len(list) != 1 {
		t.Fatalf("a terminating instance is listed; got %d", len(list))
	}
	f.clock.Advance(f.cfg.InstanceTerminateTime)
	if list, _ := f.store.Instances(ctx, f.alice); len(list) != 0 {
		t.Fatalf("terminated instances are not listed; got %+v", list)
	}
	if d := f.instance(t, f.alice, id); d.Status != models.InstanceTerminated {
		t.Fatalf("after the terminate time: %s", d.Status)
	}

	// Terminating again is answered, changes nothing and records nothing.
	again, err := f.store.TerminateInstances(ctx, f.alice, models.InstanceIDsInput{InstanceIDs: []string{id, id}})
	if err != nil || len(again) != 1 || again[0].Status != models.InstanceTerminated {
		t.Fatalf("terminate again: %v %+v", err, again)
	}
	_, err = f.store.RestartInstances(ctx, f.alice, models.InstanceIDsInput{InstanceIDs: []string{id}})
	wantCode(t, err, models.CodeConflict)

	var actions []string
	for _, ev := range f.events(t, f.alice, "instance") {
		actions = append(actions, ev.Action)
		if len(ev.ResourceLRNs) != 1 || ev.ResourceLRNs[0] != "lrn:cloud:instance:"+id {
			t.Fatalf("event %s names %v", ev.Action, ev.ResourceLRNs)
		}
	}
	if got := strings.Join(actions, ","); got != "launched,restarted,terminated" {
		t.Fatalf("events %s", got)
	}
}

func checkAddresses(t *testing.T, d *models.InstanceDetail) {
	t.Helper()
	public := netip.MustParseAddr(d.IP)
	if !netip.MustParsePrefix("198.18.0.0/15").Contains(public) {
		t.Fatalf("public ip %s", d.IP)
	}
	if !netip.MustParsePrefix("10.0.0.0/8").Contains(netip.MustParseAddr(d.PrivateIP)) {
		t.Fatalf("private ip %s", d.PrivateIP)
	}
	if d.Hostname != strings.ReplaceAll(d.IP, ".", "-") {
		t.Fatalf("hostname %q for %s", d.Hostname, d.IP)
	}
}

// A launch of N instances is N changes: one event per instance.
func TestLaunchQuantityRecordsEachInstance(t *testing.T) {
	f := newFixture(t)
	ids := f.launch(t, f.alice, launchInput("us-east-1", 3))
	evs := f.events(t, f.alice, "instance")
	if len(ids) != 3 || len(evs) != 3 {
		t.Fatalf("%d ids, %d events", len(ids), len(evs))
	}
	named := map[string]bool{}
	ips := map[string]bool{}
	for _, ev := range evs {
		named[ev.ResourceLRNs[0]] = true
	}
	for _, id := range ids {
		if !named["lrn:cloud:instance:"+id] {
			t.Fatalf("no event for %s", id)
		}
		ips[f.instance(t, f.alice, id).IP] = true
	}
	if len(ips) != 3 {
		t.Fatalf("instances share addresses: %v", ips)
	}
}

func TestLaunchMountsFilesystemsAndAttachesRulesets(t *testing.T) {
	f := newFixture(t)
	f.filesystem(t, f.alice, "datasets", "us-east-1")
	scratch := f.filesystem(t, f.alice, "scratch", "us-east-1")
	rs := f.ruleset(t, f.alice, "web", "us-east-1")
	in := launchInput("us-east-1", 1)
	in.Hostname = "head-node"
	in.FileSystemNames = []string{"datasets"}
	in.FileSystemMounts = []models.FilesystemMountInput{{MountPoint: "/data/scratch", FileSystemID: scratch}}
	in.FirewallRulesets = []models.RulesetRef{{ID: rs}}
	d := f.instance(t, f.alice, f.launch(t, f.alice, in)[0])

	if len(d.Mounts) != 2 || d.Mounts[0].FilesystemName != "datasets" || d.Mounts[0].MountPoint != "/lambda/nfs/datasets" ||
		d.Mounts[1].FilesystemID != scratch || d.Mounts[1].MountPoint != "/data/scratch" {
		t.Fatalf("mounts %+v", d.Mounts)
	}
	if len(d.RulesetIDs) != 1 || d.RulesetIDs[0] != rs || d.Hostname != "head-node" {
		t.Fatalf("rulesets %v hostname %q", d.RulesetIDs, d.Hostname)
	}
}

// Every way a launch is refused leaves nothing behind.
func TestLaunchRefusals(t *testing.T) {
	f := newFixture(t, withCapacity("gpu_1x_a10:us-east-1=1,gpu_1x_a10:us-west-1=1"))
	west := f.filesystem(t, f.alice, "west", "us-west-1")
	f.filesystem(t, f.alice, "east", "us-east-1")
	bobs := f.filesystem(t, f.bob, "bobs", "us-east-1")
	westRS := f.ruleset(t, f.alice, "west", "us-west-1")
	bobRS := f.ruleset(t, f.bob, "bobs", "us-east-1")
	f.launch(t, f.alice, launchInput("us-west-1", 1)) // us-west-1 is now full

	cases := []struct {
		name string
		edit func(*models.LaunchInstancesInput)
		code models.Code
		text string
	}{
		{"unknown key", func(in *models.LaunchInstancesInput) { in.SSHKeyNames = []string{"nope"} }, models.CodeNotFound, "ssh_key_names.0"},
		{"filesystem of another account", func(in *models.LaunchInstancesInput) { in.FileSystemNames = []string{"bobs"} }, models.CodeNotFound, "file_system_names.0"},
		{"mount of another account", func(in *models.LaunchInstancesInput) {
			in.FileSystemMounts = []models.FilesystemMountInput{{MountPoint: "/data/x", FileSystemID: bobs}}
		}, models.CodeNotFound, "file_system_mounts.0"},
		{"filesystem in another region", func(in *models.LaunchInstancesInput) { in.FileSystemNames = []string{"east", "west"} }, models.CodeFilesystemWrongZone, "us-west-1"},
		{"mount in another region", func(in *models.LaunchInstancesInput) {
			in.FileSystemMounts = []models.FilesystemMountInput{{MountPoint: "/data/x", FileSystemID: west}}
		}, models.CodeFilesystemWrongZone, "file_system_mounts.0"},
		{"mount at a named filesystem's path", func(in *models.LaunchInstancesInput) {
			in.FileSystemNames = []string{"east"}
			in.FileSystemMounts = []models.FilesystemMountInput{{MountPoint: "/lambda/nfs/east", FileSystemID: f.filesystem(t, f.alice, "east2", "us-east-1")}}
		}, models.CodeInvalidParameters, "mount point"},
		{"ruleset of another account", func(in *models.LaunchInstancesInput) { in.FirewallRulesets = []models.RulesetRef{{ID: bobRS}} }, models.CodeNotFound, "firewall_rulesets.0.id"},
		{"ruleset in another region", func(in *models.LaunchInstancesInput) { in.FirewallRulesets = []models.RulesetRef{{ID: westRS}} }, models.CodeInvalidParameters, "firewall_rulesets.0.id"},
		{"more than the capacity", func(in *models.LaunchInstancesInput) { *in.Quantity = 2 }, models.CodeInsufficientCap, "1 available"},
		{"region full", func(in *models.LaunchInstancesInput) { in.RegionName = "us-west-1" }, models.CodeInsufficientCap, "0 available"},
		{"type without capacity", func(in *models.LaunchInstancesInput) { in.InstanceTypeName = "gpu_8x_h100_sxm5" }, models.CodeInsufficientCap, "gpu_8x_h100_sxm5"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := launchInput("us-east-1", 1)
			tc.edit(&in)
			_, err := f.store.LaunchInstances(context.Background(), f.alice, in)
			wantCode(t, err, tc.code)
			if !strings.Contains(err.Error(), tc.text) {
				t.Fatalf("%v does not mention %q", err, tc.text)
			}
			e, _ := models.AsError(err)
			if e.Code == models.CodeNotFound && e.Suggestion == "" {
				t.Fatal("a launch's not-found error needs a suggestion")
			}
			// The dashboard shows each beside the one field at fault.
			if len(e.Fields) != 1 {
				t.Fatalf("fields %v: want the one field at fault", e.Fields)
			}
		})
	}
	if list, _ := f.store.Instances(context.Background(), f.alice); len(list) != 1 {
		t.Fatalf("refused launches left %d instances", len(list)-1)
	}
}

func TestLaunchNeedsAValidBillingAddress(t *testing.T) {
	f := newFixture(t)
	invalid := false
	if _, err := f.store.UpdateAccount(context.Background(), models.OperatorActor, "alice@example.com",
		models.UpdateAccountInput{BillingAddressValid: &invalid}); err != nil {
		t.Fatal(err)
	}
	_, err := f.store.LaunchInstances(context.Background(), f.alice, launchInput("us-east-1", 1))
	wantCode(t, err, models.CodeInvalidAddress)
	f.launch(t, f.bob, launchInput("us-east-1", 1))
}

func TestLaunchValidation(t *testing.T) {
	long := strings.Repeat("x", 65)
	cases := []struct {
		name  string
		edit  func(*models.LaunchInstancesInput)
		field string
	}{
		{"no region", func(in *models.LaunchInstancesInput) { in.RegionName = "" }, "region_name"},
		{"unknown region", func(in *models.LaunchInstancesInput) { in.RegionName = "mars-1" }, "region_name"},
		{"unknown type", func(in *models.LaunchInstancesInput) { in.InstanceTypeName = "gpu_99x" }, "instance_type_name"},
		{"no key", func(in *models.LaunchInstancesInput) { in.SSHKeyNames = nil }, "ssh_key_names"},
		{"two keys", func(in *models.LaunchInstancesInput) { in.SSHKeyNames = []string{"a", "b"} }, "ssh_key_names"},
		{"empty key name", func(in *models.LaunchInstancesInput) { in.SSHKeyNames = []string{""} }, "ssh_key_names.0"},
		{"zero quantity", func(in *models.LaunchInstancesInput) { *in.Quantity = 0 }, "quantity"},
		{"too many", func(in *models.LaunchInstancesInput) { *in.Quantity = models.MaxLaunchQuantity + 1 }, "quantity"},
		{"long name", func(in *models.LaunchInstancesInput) { in.Name = long }, "name"},
		{"bad hostname", func(in *models.LaunchInstancesInput) { in.Hostname = "Head_Node" }, "hostname"},
		{"hostname for many", func(in *models.LaunchInstancesInput) { in.Hostname = "head"; *in.Quantity = 2 }, "hostname"},
		{"repeated filesystem", func(in *models.LaunchInstancesInput) { in.FileSystemNames = []string{"a", "a"} }, "file_system_names.1"},
		{"bad mount point", func(in *models.LaunchInstancesInput) {
			in.FileSystemMounts = []models.FilesystemMountInput{{MountPoint: "/etc/x", FileSystemID: models.NewID()}}
		}, "file_system_mounts.0.mount_point"},
		{"mount without id", func(in *models.LaunchInstancesInput) {
			in.FileSystemMounts = []models.FilesystemMountInput{{MountPoint: "/data/x"}}
		}, "file_system_mounts.0.file_system_id"},
		{"ruleset without id", func(in *models.LaunchInstancesInput) { in.FirewallRulesets = []models.RulesetRef{{}} }, "firewall_rulesets.0.id"},
		{"bad tag key", func(in *models.LaunchInstancesInput) { in.Tags = []models.InstanceTag{{Key: "Team", Value: "x"}} }, "tags.0.key"},
		{"repeated tag", func(in *models.LaunchInstancesInput) {
			in.Tags = []models.InstanceTag{{Key: "team", Value: "x"}, {Key: "team", Value: "y"}}
		}, "tags.1.key"},
		{"long tag value", func(in *models.LaunchInstancesInput) {
			in.Tags = []models.InstanceTag{{Key: "team", Value: strings.Repeat("v", 129)}}
		}, "tags.0.value"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := launchInput("us-east-1", 1)
			tc.edit(&in)
			err := in.Validate()
			wantCode(t, err, models.CodeInvalidParameters)
			if e, _ := models.AsError(err); e.Fields[tc.field] == "" {
				t.Fatalf("fields %v, want %s", e.Fields, tc.field)
			}
		})
	}
	in := models.LaunchInstancesInput{RegionName: "us-east-1", InstanceTypeName: "gpu_1x_a10", SSHKeyNames: []string{"k"}}
	if err := in.Validate(); err != nil || *in.Quantity != 1 {
		t.Fatalf("defaults: %v", err)
	}
}
