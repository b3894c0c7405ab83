// Command fixturegen fills a database with one of every kind of row,
// through the Store as the server would, so that a dump of it can serve as
// an upgrade-test fixture of the release it was built at (see ../README.md).
// It prints what the tests need to find the rows again as JSON.
//
//	go run ./models/testdata/fixturegen -database /tmp/f.db > facts.json
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strconv"
	"time"

	"cloudplane/models"
	"cloudplane/models/database"
	"cloudplane/webhooks/netguard"
)

// Facts are the identifiers and secrets the upgrade test reads back.
type Facts struct {
	OwnerEmail   string `json:"owner_email"`
	AccountID    string `json:"account_id"`
	APIKey       string `json:"api_key"`
	FilesystemID string `json:"filesystem_id"`
	RulesetID    string `json:"ruleset_id"`
	InstanceID   string `json:"instance_id"`
	TicketID     string `json:"ticket_id"`
	DeliveryID   string `json:"delivery_id"`
}

func main() {
	dsn := flag.String("database", "", "an empty SQLite file or postgres:// URL")
	flag.Parse()
	facts, err := fill(context.Background(), *dsn)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fixturegen:", err)
		os.Exit(1)
	}
	_ = json.NewEncoder(os.Stdout).Encode(facts)
}

func fill(ctx context.Context, dsn string) (*Facts, error) {
	db, err := database.Open(ctx, dsn)
	if err != nil {
		return nil, err
	}
	if err := db.Migrate(ctx); err != nil {
		return nil, err
	}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	clock := func() time.Time { return now }
	cfg := models.DefaultConfig()
	cfg.PasswordCost = 4
	cfg.InstanceBootTime = time.Minute
	cfg.WebhookAllowPrivate = true
	s := models.NewStore(db, models.WithConfig(cfg), models.WithClock(clock), models.WithWebhookGuard(netguard.Guard{}))
	defer s.Close()
	f := &Facts{OwnerEmail: "owner@example.com"}
	op := models.OperatorActor

	owner, err := s.CreateUser(ctx, op, models.CreateUserInput{Email: f.OwnerEmail, Password: "correct horse battery"})
	if err != nil {
		return nil, err
	}
	support, err := s.CreateUser(ctx, op, models.CreateUserInput{Email: "help@example.com", Password: "support password", Role: models.RoleSupport})
	if err != nil {
		return nil, err
	}
	me := owner.Actor()
	f.AccountID = me.AccountID
	if _, f.APIKey, err = s.CreateAPIKey(ctx, me, models.CreateAPIKeyInput{Name: "laptop"}); err != nil {
		return nil, err
	}
	if _, _, err := s.CreateAPIKey(ctx, me, models.CreateAPIKeyInput{Name: "revoked"}); err != nil {
		return nil, err
	}
	if _, _, err := s.SignIn(ctx, models.SignInInput{Email: f.OwnerEmail, Password: "correct horse battery", SourceIP: "192.0.2.7"}); err != nil {
		return nil, err
	}
	fs, err := s.CreateFilesystem(ctx, me, models.CreateFilesystemInput{Name: "datasets", Region: "us-east-1"})
	if err != nil {
		return nil, err
	}
	f.FilesystemID = fs.ID
	if _, err := s.CreateFilesystem(ctx, me, models.CreateFilesystemInput{Name: "scratch", Region: "us-east-1"}); err != nil {
		return nil, err
	}
	rs, err := s.CreateFirewallRuleset(ctx, me, models.CreateFirewallRulesetInput{Name: "web", Region: "us-east-1",
		Rules: []models.FirewallRule{{Protocol: "tcp", PortRange: []int{443, 443}, SourceNetwork: "0.0.0.0/0", Description: "https"}}})
	if err != nil {
		return nil, err
	}
	f.RulesetID = rs.ID
	if _, _, err := s.CreateSSHKey(ctx, me, models.CreateSSHKeyInput{Name: "generated"}); err != nil {
		return nil, err
	}
	ids, err := s.LaunchInstances(ctx, me, models.LaunchInstancesInput{RegionName: "us-east-1", InstanceTypeName: "gpu_1x_a10",
		SSHKeyNames: []string{"generated"}, Name: "trainer", FileSystemNames: []string{"datasets"},
		FirewallRulesets: []models.RulesetRef{{ID: rs.ID}}, Tags: []models.InstanceTag{{Key: "team", Value: "ml"}}})
	if err != nil {
		return nil, err
	}
	f.InstanceID = ids[0]
	if _, _, err := s.SetWebhook(ctx, me, models.SetWebhookInput{URL: "https://hooks.example.com/cloudplane"}); err != nil {
		return nil, err
	}
	sev := "sev_2"
	t, err := s.CreateTicket(ctx, me, models.CreateTicketInput{Subject: "GPU lost", Description: "nvidia-smi shows none",
		Type: models.TicketIncident, Severity: &sev, InstanceID: &f.InstanceID})
	if err != nil {
		return nil, err
	}
	f.TicketID = t.ID
	open := models.TicketOpen
	if _, err := s.UpdateTicket(ctx, support.Actor(), t.ID, models.UpdateTicketInput{Status: &open,
		Comment: &models.TicketCommentInput{Body: "Looking into it."}}); err != nil {
		return nil, err
	}
	if _, err := s.UpdateTicket(ctx, me, t.ID, models.UpdateTicketInput{Comment: &models.TicketCommentInput{Body: "Thanks."}}); err != nil {
		return nil, err
	}
	if f.DeliveryID, err = attempt(ctx, s, now); err != nil {
		return nil, err
	}
	return f, nil
}

// attempt records one failed attempt for every due delivery, as the
// dispatcher would, and returns the first delivery's id.
func attempt(ctx context.Context, s *models.Store, now time.Time) (string, error) {
	jobs, err := s.ClaimWebhookDeliveries(ctx, "fixturegen", 100, time.Minute)
	if err != nil || len(jobs) == 0 {
		return "", fmt.Errorf("claim deliveries: %d, %v", len(jobs), err)
	}
	var records []models.AttemptRecord
	for _, job := range jobs {
		retry := now.Add(time.Minute)
		records = append(records, models.AttemptRecord{Job: job, Decision: models.DeliveryDecision{RetryAt: &retry},
			Attempt: models.WebhookAttempt{URL: job.URL, StartedAt: now, StatusCode: 500, ErrorKind: "http",
				Error: "HTTP " + strconv.Itoa(500), RemoteAddr: "203.0.113.9:443",
				RequestHeaders:  map[string]string{"Authorization": "Bearer " + models.MaskToken(job.Token)},
				ResponseHeaders: map[string][]string{"Content-Type": {"text/plain"}}, ResponseBody: []byte("oops")}})
	}
	return jobs[0].DeliveryID, s.RecordWebhookAttempts(ctx, "fixturegen", records)
}
