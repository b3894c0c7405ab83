package models_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// join is modelstest.Member.
var join = modelstest.Member

// Every role meets the same rules in the domain, whichever door it came
// through: an owner does everything, a member the account's resources but
// not its members or webhooks, a viewer only reads (and makes read-only
// keys). A refusal is global/insufficient-scope.
func TestRolesAreCheckedInTheDomain(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	s := f.store
	member, _ := join(t, s, f.alice, "member@example.com", models.RoleMember)
	viewer, _ := join(t, s, f.alice, "viewer@example.com", models.RoleViewer)

	ops := []struct {
		name   string
		allows []string // roles allowed
		do     func(a models.Actor) error
	}{
		{"list filesystems", models.MemberRoles, func(a models.Actor) error { _, err := s.Filesystems(ctx, a); return err }},
		{"list members", models.MemberRoles, func(a models.Actor) error { _, err := s.Members(ctx, a, ""); return err }},
		{"read webhooks", models.MemberRoles, func(a models.Actor) error { _, err := s.WebhookEndpoints(ctx, a, ""); return err }},
		{"create filesystem", []string{"owner", "member"}, func(a models.Actor) error {
			_, err := s.CreateFilesystem(ctx, a, models.CreateFilesystemInput{Name: "fs-" + a.Role, Region: "us-east-1"})
			return err
		}},
		{"create SSH key", []string{"owner", "member"}, func(a models.Actor) error {
			_, _, err := s.CreateSSHKey(ctx, a, models.CreateSSHKeyInput{Name: "k-" + a.Role})
			return err
		}},
		{"create ruleset", []string{"owner", "member"}, func(a models.Actor) error {
			_, err := s.CreateFirewallRuleset(ctx, a, models.CreateFirewallRulesetInput{Name: "r-" + a.Role, Region: "us-east-1", Rules: []models.FirewallRule{}})
			return err
		}},
		{"create ticket", []string{"owner", "member"}, func(a models.Actor) error {
			_, err := s.CreateTicket(ctx, a, models.CreateTicketInput{Subject: "help", Description: "please", Type: models.TicketServiceRequest})
			return err
		}},
		{"replace inbound rules", []string{"owner", "member"}, func(a models.Actor) error {
			_, err := s.ReplaceInboundFirewallRules(ctx, a, models.ReplaceInboundRulesInput{Rules: []models.FirewallRule{}})
			return err
		}},
		{"update the global ruleset", []string{"owner", "member"}, func(a models.Actor) error {
			_, err := s.UpdateGlobalFirewallRuleset(ctx, a, models.UpdateGlobalRulesetInput{Rules: &[]models.FirewallRule{}})
			return err
		}},
		{"create fabric partition", []string{"owner", "member"}, func(a models.Actor) error {
			_, err := s.CreateFabricPartition(ctx, a, models.CreateFabricPartitionInput{Name: "p-" + a.Role, Region: "us-east-1"})
			return err
		}},
		{"launch an instance", []string{"owner", "member"}, func(a models.Actor) error {
			_, err := s.LaunchInstances(ctx, a, launchInput("us-east-1", 1))
			return err
		}},
		{"full API key", []string{"owner", "member"}, func(a models.Actor) error {
			_, _, err := s.CreateAPIKey(ctx, a, models.CreateAPIKeyInput{})
			return err
		}},
		{"read-only API key", models.MemberRoles, func(a models.Actor) error {
			_, _, err := s.CreateAPIKey(ctx, a, models.CreateAPIKeyInput{ReadOnly: true})
			return err
		}},
		{"create webhook", []string{"owner"}, func(a models.Actor) error {
			_, _, err := s.CreateWebhookEndpoint(ctx, a, models.SetWebhookInput{URL: "https://hooks.example.com/" + a.Role})
			return err
		}},
		{"send a test webhook event", []string{"owner"}, func(a models.Actor) error {
			_, err := s.SendTestWebhookEvent(ctx, a, "0123456789abcdef0123456789abcdef")
			if models.ErrorCode(err) == models.CodeNotFound {
				return nil // allowed, and there is no such endpoint
			}
			return err
		}},
		{"change a role", []string{"owner"}, func(a models.Actor) error {
			_, err := s.SetMemberRole(ctx, a, models.MemberInput{Member: "viewer@example.com", Role: models.RoleViewer})
			return err
		}},
		{"remove a member", []string{"owner"}, func(a models.Actor) error {
			_, err := s.RemoveMember(ctx, a, models.MemberInput{Member: "nobody@example.com"})
			if models.ErrorCode(err) == models.CodeNotFound {
				return nil // allowed, and nobody is not a member
			}
			return err
		}},
	}
	for _, op := range ops {
		for _, a := range []models.Actor{f.alice, member, viewer} {
			err := op.do(a)
			allowed := false
			for _, r := range op.allows {
				allowed = allowed || r == a.Role
			}
			switch {
			case allowed && err != nil:
				t.Errorf("%s as %s: %v", op.name, a.Role, err)
			case !allowed && models.ErrorCode(err) != models.CodeInsufficientScope:
				t.Errorf("%s as %s: %v, want %s", op.name, a.Role, err, models.CodeInsufficientScope)
			}
		}
	}
	// Nobody acts on an account they are not a member of.
	if _, err := s.MemberActorByEmail(ctx, "alice@example.com", "bob@example.com"); models.ErrorCode(err) != models.CodeNotFound {
		t.Fatalf("bob in alice's account: %v", err)
	}
}

// The last owner cannot be demoted, removed or leave; another owner can.
func TestTheLastOwnerStays(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	s := f.store
	member, _ := join(t, s, f.alice, "member@example.com", models.RoleMember)
	for name, do := range map[string]func() error{
		"demote": func() error {
			_, err := s.SetMemberRole(ctx, f.alice, models.MemberInput{Member: "alice@example.com", Role: models.RoleMember})
			return err
		},
		"remove": func() error {
			_, err := s.RemoveMember(ctx, f.alice, models.MemberInput{Member: f.alice.UserID})
			return err
		},
		"leave": func() error { _, err := s.LeaveAccount(ctx, f.alice); return err },
		"operator demotes": func() error {
			_, err := s.SetMemberRole(ctx, models.OperatorActor, models.MemberInput{AccountID: f.alice.AccountID,
				Member: "alice@example.com", Role: models.RoleViewer})
			return err
		},
	} {
		if err := do(); !models.IsLastOwner(err) || models.ErrorCode(err) != models.CodeConflict {
			t.Errorf("%s the last owner: %v", name, err)
		}
	}
	// With a second owner, the first may leave.
	if _, err := s.SetMemberRole(ctx, f.alice, models.MemberInput{Member: member.Email, Role: models.RoleOwner}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.LeaveAccount(ctx, f.alice); err != nil {
		t.Fatalf("leave with another owner: %v", err)
	}
	ms := modelstest.Must[[]models.Member](t)(s.Members(ctx, models.OperatorActor, f.alice.AccountID))
	if len(ms) != 1 || ms[0].Email != member.Email || ms[0].Role != models.RoleOwner {
		t.Fatalf("members after alice left: %+v", ms)
	}
	events := f.events(t, models.Actor{UserID: member.UserID, Email: member.Email, Role: models.RoleOwner,
		AccountID: f.alice.AccountID}, "member")
	var actions []string
	for _, ev := range events {
		actions = append(actions, ev.Action+" by "+*ev.ActorRole)
	}
	slices.Sort(actions) // one instant on the test's clock
	if fmt.Sprint(actions) != "[created by owner deleted by owner updated by owner]" {
		t.Fatalf("member events: %v", actions)
	}
}

// Owners demoting each other all at once leave exactly one owner: the
// account row is locked and the owners counted in the transaction that
// writes. On PostgreSQL these transactions really run at once.
func TestConcurrentDemotionsLeaveOneOwner(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	s := f.store
	const n = 12
	owners := []models.Actor{f.alice}
	for i := 1; i < n; i++ {
		a, _ := join(t, s, f.alice, fmt.Sprintf("owner%d@example.com", i), models.RoleOwner)
		owners = append(owners, a)
	}
	var wg sync.WaitGroup
	errs := make([]error, n)
	start := make(chan struct{})
	for i := range owners {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			next := owners[(i+1)%n]
			_, errs[i] = s.SetMemberRole(ctx, owners[i], models.MemberInput{Member: next.UserID, Role: models.RoleMember})
		}()
	}
	close(start)
	wg.Wait()
	// Each demotion is applied, refused as the last owner's, or refused
	// because its owner was demoted first (the role is checked again under
	// the account's lock): never an owner-less account.
	applied := 0
	for _, err := range errs {
		switch {
		case err == nil:
			applied++
		case models.IsLastOwner(err), models.ErrorCode(err) == models.CodeInsufficientScope:
		default:
			t.Errorf("demotion: %v", err)
		}
	}
	ms := modelstest.Must[[]models.Member](t)(s.Members(ctx, models.OperatorActor, f.alice.AccountID))
	left := 0
	for _, m := range ms {
		if m.Role == models.RoleOwner {
			left++
		}
	}
	if left < 1 || left != n-applied {
		t.Fatalf("%d owners left after %d demotions of %d owners", left, applied, n)
	}
}

// The owner check of a member change is made again under the account's
// lock: an owner demoted (or removed) while their request was in flight
// changes nothing, and cannot make themselves owner again.
func TestADemotedOwnersInFlightRequestChangesNoMember(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	s := f.store
	b, _ := join(t, s, f.alice, "b@example.com", models.RoleOwner) // b's request authenticated as owner
	c, _ := join(t, s, f.alice, "c@example.com", models.RoleMember)
	if _, err := s.SetMemberRole(ctx, f.alice, models.MemberInput{Member: b.UserID, Role: models.RoleViewer}); err != nil {
		t.Fatal(err)
	}
	stale := []struct {
		name string
		do   func() error
	}{
		{"promote themselves", func() error {
			_, err := s.SetMemberRole(ctx, b, models.MemberInput{Member: b.UserID, Role: models.RoleOwner})
			return err
		}},
		{"demote alice", func() error {
			_, err := s.SetMemberRole(ctx, b, models.MemberInput{Member: f.alice.UserID, Role: models.RoleViewer})
			return err
		}},
		{"remove c", func() error { _, err := s.RemoveMember(ctx, b, models.MemberInput{Member: c.UserID}); return err }},
		{"add someone", func() error {
			u, _ := modelstest.Owner(t, s, "d@example.com")
			_, err := s.AddMemberNow(ctx, b, f.alice.AccountID, u.ID, models.RoleOwner)
			return err
		}},
	}
	for _, op := range stale {
		if err := op.do(); models.ErrorCode(err) != models.CodeInsufficientScope {
			t.Errorf("%s with a stale owner role: %v, want %s", op.name, err, models.CodeInsufficientScope)
		}
	}
	ms := modelstest.Must[[]models.Member](t)(s.Members(ctx, models.OperatorActor, f.alice.AccountID))
	roles := map[string]string{}
	for _, m := range ms {
		roles[m.Email] = m.Role
	}
	if len(ms) != 3 || roles[b.Email] != models.RoleViewer || roles[f.alice.Email] != models.RoleOwner || roles[c.Email] != models.RoleMember {
		t.Fatalf("members after the stale requests: %v", roles)
	}
	// Removed rather than demoted: the same.
	if _, err := s.RemoveMember(ctx, f.alice, models.MemberInput{Member: b.UserID}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RemoveMember(ctx, b, models.MemberInput{Member: c.UserID}); models.ErrorCode(err) != models.CodeInsufficientScope {
		t.Fatalf("a removed owner's in-flight removal: %v", err)
	}
}

// Only an owner of the account, or staff, adds members: a member, a
// viewer or an owner of another account adds no one, whatever the role.
// (An invitation, accepted, is the other way in; see invitations.)
func TestOnlyOwnersAndStaffAddMembers(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	s := f.store
	member, _ := join(t, s, f.alice, "member@example.com", models.RoleMember)
	viewer, _ := join(t, s, f.alice, "viewer@example.com", models.RoleViewer)
	stranger, _ := modelstest.Owner(t, s, "stranger@example.com")
	newcomer, _ := modelstest.Owner(t, s, "new@example.com")
	for _, tc := range []struct {
		who  models.Actor
		want models.Code
	}{
		{member, models.CodeInsufficientScope},
		{viewer, models.CodeInsufficientScope},
		{stranger.Actor(), models.CodeNotFound},
		{models.Actor{UserID: newcomer.ID, Email: newcomer.Email}, models.CodeForbidden}, // acts in no account
	} {
		_, err := s.AddMemberNow(ctx, tc.who, f.alice.AccountID, newcomer.ID, models.RoleOwner)
		if models.ErrorCode(err) != tc.want {
			t.Errorf("%s (%s) adds an owner: %v, want %s", tc.who.Email, tc.who.Role, err, tc.want)
		}
	}
	if _, err := s.AddMemberNow(ctx, models.OperatorActor, f.alice.AccountID, newcomer.ID, models.RoleViewer); err != nil {
		t.Fatalf("the operator adds a viewer: %v", err)
	}
	other, _ := modelstest.Owner(t, s, "other@example.com")
	if _, err := s.AddMemberNow(ctx, f.alice, f.alice.AccountID, other.ID, models.RoleOwner); err != nil {
		t.Fatalf("an owner adds an owner: %v", err)
	}
	ms := modelstest.Must[[]models.Member](t)(s.Members(ctx, models.OperatorActor, f.alice.AccountID))
	if len(ms) != 5 {
		t.Fatalf("%d members, want 5 (alice, member, viewer, new, other)", len(ms))
	}
}

// A key acts with its member's role at each request: demoted to viewer on
// one replica, the member's old full key is refused writes on another
// within the credentials interval; removed, their key is unknown there and
// their sessions on the account are over, while their own account's
// session goes on.
func TestRoleChangesReachOtherReplicas(t *testing.T) {
	ctx := context.Background()
	clock, here, there := twoReplicas(t)
	owner, _ := modelstest.Owner(t, here, "owner@example.com")
	member, secret := join(t, here, owner.Actor(), "member@example.com", models.RoleMember)

	a, err := there.Authenticate(ctx, secret)
	if err != nil || a.Role != models.RoleMember || a.AccountID != owner.Actor().AccountID {
		t.Fatalf("member's key: %+v, %v", a, err)
	}
	if _, err := there.CreateFilesystem(ctx, a, models.CreateFilesystemInput{Name: "a", Region: "us-east-1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := here.SetMemberRole(ctx, owner.Actor(), models.MemberInput{Member: member.Email, Role: models.RoleViewer}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(250 * time.Millisecond)
	a, err = there.Authenticate(ctx, secret)
	if err != nil || a.Role != models.RoleViewer {
		t.Fatalf("demoted member's key: %+v, %v", a, err)
	}
	_, err = there.CreateFilesystem(ctx, a, models.CreateFilesystemInput{Name: "b", Region: "us-east-1"})
	wantCode(t, err, models.CodeInsufficientScope)

	// Sessions: one on the owner's account, one on the member's own.
	sign := func() string {
		_, token, err := there.SignIn(ctx, models.SignInInput{Email: member.Email, Password: "correct horse battery"})
		if err != nil {
			t.Fatal(err)
		}
		return token
	}
	onOwners, onOwn := sign(), sign()
	sess := sessionOf(t, there, onOwners)
	if err := there.SwitchAccount(ctx, sess.Acting, owner.Actor().AccountID); err != nil {
		t.Fatal(err)
	}
	sess = sessionOf(t, there, onOwners)
	if sess.Acting.AccountID != owner.Actor().AccountID || sess.Acting.Role != models.RoleViewer {
		t.Fatalf("switched session acts as %+v", sess.Acting)
	}
	if err := there.SwitchAccount(ctx, sess.Acting, "0123456789abcdef0123456789abcdef"); models.ErrorCode(err) != models.CodeNotFound {
		t.Fatalf("switch to an account of no membership: %v", err)
	}

	if _, err := here.RemoveMember(ctx, owner.Actor(), models.MemberInput{Member: member.Email}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(250 * time.Millisecond)
	if _, err := there.Authenticate(ctx, secret); models.ErrorCode(err) != models.CodeInvalidAPIKey {
		t.Fatalf("removed member's key on the other replica: %v", err)
	}
	if _, _, err := there.SessionByToken(ctx, onOwners); !errors.Is(err, models.ErrNoSession) {
		t.Fatalf("removed member's session on the account: %v", err)
	}
	sess = sessionOf(t, there, onOwn)
	if sess.Acting.AccountID == owner.Actor().AccountID || sess.Acting.Role != models.RoleOwner {
		t.Fatalf("the member's session on their own account: %+v", sess.Acting)
	}
}

// An owner sees and revokes every member's keys; a member only their own.
func TestOwnersManageEveryKey(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	s := f.store
	member, _ := join(t, s, f.alice, "member@example.com", models.RoleMember)
	all := modelstest.Must[[]models.MemberAPIKey](t)(s.MemberAPIKeys(ctx, f.alice))
	mine := modelstest.Must[[]models.MemberAPIKey](t)(s.MemberAPIKeys(ctx, member))
	if len(all) != 2 || len(mine) != 1 || mine[0].Email != member.Email {
		t.Fatalf("owner sees %d keys, member %d (%+v)", len(all), len(mine), mine)
	}
	var ownersKey string
	for _, k := range all {
		if k.UserID == f.alice.UserID {
			ownersKey = k.ID
		}
	}
	_, err := s.RevokeAPIKey(ctx, member, ownersKey)
	wantCode(t, err, models.CodeNotFound)
	if _, err := s.RevokeAPIKey(ctx, f.alice, mine[0].ID); err != nil {
		t.Fatalf("owner revokes the member's key: %v", err)
	}
}

func sessionOf(t *testing.T, store *models.Store, token string) *models.Session {
	t.Helper()
	sess, _, err := store.SessionByToken(context.Background(), token)
	if err != nil {
		t.Fatal(err)
	}
	return sess
}

// Members and viewers read an endpoint's settings and health but never
// its bearer token or signing secrets, from any read of the domain; an
// owner's reads carry them (the dashboard reveals the secret to owners).
func TestWebhookReadsKeepSecretsFromMembersAndViewers(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	s := f.store
	member, _ := join(t, s, f.alice, "member@example.com", models.RoleMember)
	viewer, _ := join(t, s, f.alice, "viewer@example.com", models.RoleViewer)
	e, _, err := s.CreateWebhookEndpoint(ctx, f.alice, models.SetWebhookInput{URL: "https://hooks.example.com/a"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.RotateWebhookSecret(ctx, f.alice, e.ID); err != nil {
		t.Fatal(err)
	}
	reads := func(a models.Actor) []models.WebhookEndpoint {
		all := modelstest.Must[[]models.WebhookEndpoint](t)(s.WebhookEndpoints(ctx, a, ""))
		one := modelstest.Must[*models.WebhookEndpoint](t)(s.WebhookEndpoint(ctx, a, e.ID))
		first := modelstest.Must[*models.WebhookEndpoint](t)(s.Webhook(ctx, a, ""))
		health := modelstest.Must[*models.WebhookHealth](t)(s.WebhookHealth(ctx, a, e.ID))
		return append(all, *one, *first, health.Endpoint)
	}
	for _, got := range reads(f.alice) {
		if got.Token == "" || got.Secret == "" || got.PreviousSecret == "" {
			t.Fatalf("the owner's read lacks the secrets: %+v", got)
		}
	}
	for _, a := range []models.Actor{member, viewer} {
		for _, got := range reads(a) {
			if got.Token != "" || got.Secret != "" || got.PreviousSecret != "" || got.URL != e.URL {
				t.Fatalf("%s reads token %q secret %q previous %q url %q", a.Role, got.Token, got.Secret, got.PreviousSecret, got.URL)
			}
		}
	}
}

// Staff and the CLI name accounts by id, or by the email of an owner who
// owns exactly that account now: after Alice made Carol an owner and left,
// "alice@" names nothing (not the account created with her), "carol@"
// owns two and is refused with both ids, and the support list labels the
// account by Carol and finds it by her, not Alice.
func TestAccountReferencesFollowTheCurrentOwners(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	s := f.store
	team := f.alice.AccountID
	carol, _ := join(t, s, f.alice, "carol@example.com", models.RoleOwner)
	carolsOwn := modelstest.Must[*models.User](t)(s.UserByEmail(ctx, carol.Email)).AccountID
	if _, err := s.LeaveAccount(ctx, f.alice); err != nil {
		t.Fatal(err)
	}
	staff := models.OperatorActor
	if id, err := s.AccountID(ctx, staff, team); err != nil || id != team {
		t.Fatalf("by id: %q %v", id, err)
	}
	if id, err := s.AccountID(ctx, staff, "bob@example.com"); err != nil || id != f.bob.AccountID {
		t.Fatalf("by the email of an owner of one account: %q %v", id, err)
	}
	if _, err := s.AccountID(ctx, staff, "alice@example.com"); models.ErrorCode(err) != models.CodeInvalidParameters {
		t.Fatalf("alice, who owns nothing now: %v", err)
	}
	_, err := s.AccountID(ctx, staff, "Carol@example.com")
	if models.ErrorCode(err) != models.CodeInvalidParameters || !strings.Contains(err.Error(), team) || !strings.Contains(err.Error(), *carolsOwn) {
		t.Fatalf("carol, who owns two: %v", err)
	}
	if _, err := s.AccountIDByOwnerEmail(ctx, "carol@example.com"); models.ErrorCode(err) != models.CodeInvalidParameters {
		t.Fatalf("the CLI's --account carol@: %v", err)
	}
	inactive := models.AccountInactive
	if _, err := s.UpdateAccount(ctx, staff, "alice@example.com", models.UpdateAccountInput{Status: &inactive}); err == nil {
		t.Fatal("accounts update --email alice@ changed an account")
	}
	if a, err := s.UpdateAccount(ctx, staff, team, models.UpdateAccountInput{Status: &inactive}); err != nil || a.ID != team {
		t.Fatalf("accounts update --account <id>: %+v %v", a, err)
	}
	byAlice := modelstest.Must[*models.AccountPage](t)(s.Accounts(ctx, staff, models.AccountFilter{Email: "alice"}))
	if len(byAlice.Accounts) != 0 {
		t.Fatalf("the support list finds %d accounts by alice, who owns none", len(byAlice.Accounts))
	}
	byCarol := modelstest.Must[*models.AccountPage](t)(s.Accounts(ctx, staff, models.AccountFilter{Email: "carol"}))
	labels := map[string]string{}
	for _, a := range byCarol.Accounts {
		labels[a.ID] = a.OwnerEmail
	}
	if len(labels) != 2 || labels[team] != carol.Email || labels[*carolsOwn] != carol.Email {
		t.Fatalf("the support list by carol: %v", labels)
	}
	one := modelstest.Must[*models.AccountListing](t)(s.AccountForSupport(ctx, staff, team))
	if one.OwnerEmail != carol.Email {
		t.Fatalf("the account page labels it %q", one.OwnerEmail)
	}
}
