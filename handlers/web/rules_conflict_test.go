package web_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"testing"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

var versionField = regexp.MustCompile(`name="version" value="(\d+)"`)

// loadedVersion is the version a rules editor page was loaded with.
func loadedVersion(t *testing.T, p *page) string {
	t.Helper()
	m := versionField.FindStringSubmatch(p.Body)
	if m == nil {
		t.Fatalf("no version field on the page:\n%s", p.Body)
	}
	return m[1]
}

// Each rules editor sends the version it loaded; when someone else saved
// first, nothing is saved, the user is told, and their rows come back as
// typed with the version saved now, so saving again replaces it knowingly.
func TestRulesEditorsRefuseToOverwriteASaveMadeMeanwhile(t *testing.T) {
	for _, tc := range []struct {
		name, path string
		other      func(e *env, u *models.User, path string)
	}{
		{name: "inbound rules", path: "/firewall", other: func(e *env, u *models.User, _ string) {
			modelstest.Must[models.RuleList](e.t)(e.store.ReplaceInboundFirewallRules(context.Background(), u.Actor(),
				models.ReplaceInboundRulesInput{Rules: []models.FirewallRule{}}))
		}},
		{name: "global rules", path: "/firewall/global", other: func(e *env, u *models.User, _ string) {
			modelstest.Must[models.RuleList](e.t)(e.store.UpdateGlobalFirewallRuleset(context.Background(), u.Actor(),
				models.UpdateGlobalRulesetInput{Rules: &[]models.FirewallRule{}}))
		}},
		{name: "ruleset", other: func(e *env, u *models.User, path string) {
			name := "renamed meanwhile"
			modelstest.Must[*models.FirewallRulesetView](e.t)(e.store.UpdateFirewallRuleset(context.Background(), u.Actor(),
				path[len("/firewall/rulesets/"):], models.UpdateFirewallRulesetInput{Name: &name}))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			ada := e.owner("ada@example.com")
			path := tc.path
			if path == "" {
				path = "/firewall/rulesets/" + e.ruleset(ada, "web", "us-west-1").ID
			}
			b := e.signedIn("ada@example.com")
			version := loadedVersion(t, b.get(path).expect(http.StatusOK))
			tc.other(e, ada, path)

			mine := rulesForm(url.Values{"version": {version}, "name": {"web"}}, rule{"udp", "51820", "0.0.0.0/0", "WireGuard"})
			refused := b.post(path, mine).expect(http.StatusConflict).
				contains("Someone else saved these rules", `value="51820"`, `value="WireGuard"`)
			now := loadedVersion(t, refused)
			if now == version {
				t.Fatalf("the refused form still carries version %s", version)
			}
			b.get(path).lacks(`value="WireGuard"`)
			// Only the version's own spelling matches, as with If-Match.
			for _, spelling := range []string{"0" + now, "+" + now, " " + now} {
				mine.Set("version", spelling)
				b.post(path, mine).expect(http.StatusConflict)
			}
			b.get(path).lacks(`value="WireGuard"`)

			mine.Set("version", now)
			b.post(path, mine).expect(http.StatusSeeOther)
			b.get(path).contains(`value="WireGuard"`)
		})
	}
}
