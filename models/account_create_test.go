package models_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// quotaCreates are the creates bound by an account quota, each making the
// object named name.
var quotaCreates = []struct {
	resource string // audit resource
	what     string // in the quota's message
	create   func(f *fixture, name string) error
}{
	{"filesystem", "filesystems", func(f *fixture, name string) error {
		_, err := f.store.CreateFilesystem(context.Background(), f.alice, models.CreateFilesystemInput{Name: name, Region: "us-east-1"})
		return err
	}},
	{"firewall_ruleset", "firewall rulesets", func(f *fixture, name string) error {
		_, err := f.store.CreateFirewallRuleset(context.Background(), f.alice,
			models.CreateFirewallRulesetInput{Name: name, Region: "us-east-1", Rules: []models.FirewallRule{}})
		return err
	}},
	{"fabric_partition", "fabric partitions", func(f *fixture, name string) error {
		_, err := f.store.CreateFabricPartition(context.Background(), f.alice, models.CreateFabricPartitionInput{Name: name, Region: "us-east-1"})
		return err
	}},
}

// Many creates of one resource at once in one account never pass its
// quota: the account lock before the count makes each count the others.
// The refused ones name the quota and record nothing.
func TestQuotaHoldsUnderConcurrentCreates(t *testing.T) {
	const quota, clients = 4, 16
	f := newFixture(t, func(_ *testing.T, cfg *models.Config) {
		cfg.DefaultFilesystemQuota = quota
		cfg.DefaultRulesetQuota = quota
		cfg.DefaultFabricPartitionQuota = quota
	})
	for _, c := range quotaCreates {
		t.Run(c.resource, func(t *testing.T) {
			var mu sync.Mutex // the clients run at once
			var refusal error
			codes := race(clients, func(i int) error {
				err := c.create(f, fmt.Sprintf("n%d", i))
				if models.ErrorCode(err) == models.CodeQuotaExceeded {
					mu.Lock()
					refusal = err
					mu.Unlock()
				}
				return err
			})
			if codes["ok"] != quota || codes[string(models.CodeQuotaExceeded)] != clients-quota {
				t.Fatalf("outcomes %v on %s, want %d ok", codes, modelstest.Backend(), quota)
			}
			if want := fmt.Sprintf("The account has reached its quota of %d %s", quota, c.what); !strings.Contains(refusal.Error(), want) {
				t.Fatalf("refusal %q, want %q", refusal, want)
			}
			if n := len(f.events(t, f.alice, c.resource)); n != quota {
				t.Fatalf("%d audit events for %d creates", n, quota)
			}
		})
	}
	assertUsageMatchesRows(t, f.store.DB())
}

// Of concurrent creates of one name, one wins and the others get the
// resource's own answer, naming the field the form shows it beside.
// Ruleset names need not be unique.
func TestDuplicateNameAnswersItsResource(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	for _, c := range []struct {
		resource string
		create   func(name string) error
		code     models.Code // "" when every create succeeds
		field    string      // the field's message; %q is the name
		message  string      // %q is the name
	}{
		{"filesystem", func(name string) error {
			_, err := f.store.CreateFilesystem(ctx, f.alice, models.CreateFilesystemInput{Name: name, Region: "us-east-1"})
			return err
		}, models.CodeDuplicate, "is already used", "name: a filesystem named %q already exists in this account"},
		{"fabric_partition", func(name string) error {
			_, err := f.store.CreateFabricPartition(ctx, f.alice, models.CreateFabricPartitionInput{Name: name, Region: "us-east-1"})
			return err
		}, models.CodeDuplicate, "is already used in this region", "name: a fabric partition named %q already exists in us-east-1 in this account"},
		{"ssh_key", func(name string) error {
			_, _, err := f.store.CreateSSHKey(ctx, f.alice, models.CreateSSHKeyInput{Name: name})
			return err
		}, models.CodeInvalidParameters, "an SSH key named %q already exists in this account",
			"Invalid name: an SSH key named %q already exists in this account"},
		{"firewall_ruleset", func(name string) error {
			_, err := f.store.CreateFirewallRuleset(ctx, f.alice,
				models.CreateFirewallRulesetInput{Name: name, Region: "us-east-1", Rules: []models.FirewallRule{}})
			return err
		}, "", "", ""},
	} {
		t.Run(c.resource, func(t *testing.T) {
			const clients, name = 6, "twin"
			before := len(f.events(t, f.alice, c.resource))
			errs := make([]error, clients)
			codes := race(clients, func(i int) error { errs[i] = c.create(name); return errs[i] })
			winners := 1
			if c.code == "" {
				winners = clients
			}
			if codes["ok"] != winners || codes[string(c.code)] != clients-winners {
				t.Fatalf("outcomes %v on %s, want %d ok", codes, modelstest.Backend(), winners)
			}
			if n := len(f.events(t, f.alice, c.resource)) - before; n != winners {
				t.Fatalf("%d audit events for %d creates", n, winners)
			}
			for _, err := range errs {
				if err == nil {
					continue
				}
				e, _ := models.AsError(err)
				named := strings.NewReplacer("%q", fmt.Sprintf("%q", name))
				if e == nil || e.Fields["name"] != named.Replace(c.field) || e.Message != named.Replace(c.message) {
					t.Fatalf("duplicate answered %#v", e)
				}
			}
		})
	}
}
