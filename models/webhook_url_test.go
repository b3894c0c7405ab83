package models_test

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
	"cloudplane/webhooks/netguard"
)

// fakeResolver answers from a table; "slow.example.com" answers only when
// its context ends, and the lookups' deadlines are kept.
type fakeResolver struct {
	names       map[string][]string
	slowWaitMax atomic.Int64 // longest deadline a slow lookup was given
}

func (r *fakeResolver) LookupNetIP(ctx context.Context, _, host string) ([]netip.Addr, error) {
	if host == "slow.example.com" {
		deadline, ok := ctx.Deadline()
		if !ok {
			return nil, errors.New("a lookup without a deadline")
		}
		r.slowWaitMax.Store(int64(time.Until(deadline)))
		<-ctx.Done()
		return nil, ctx.Err()
	}
	var out []netip.Addr
	for _, a := range r.names[host] {
		out = append(out, netip.MustParseAddr(a))
	}
	if out == nil {
		return nil, errors.New("no such host")
	}
	return out, nil
}

// Every spelling of an internal address is refused when the URL is saved,
// and so is a name that resolves to one; a public address in an odd
// spelling is stored as the address it stands for; a slow or failing
// lookup does not refuse a save.
func TestWebhookURLsAreCheckedWhenSaved(t *testing.T) {
	resolver := &fakeResolver{names: map[string][]string{
		"hooks.example.com":     {"93.184.216.34"},
		"internal.example.com":  {"10.0.0.5"},
		"mixed.example.com":     {"93.184.216.34", "127.0.0.1"},
		"mapped.example.com":    {"::ffff:169.254.169.254"},
		"v6.example.com":        {"2606:4700::1111"},
		"xn--bcher-kva.example": {"93.184.216.34"},
	}}
	openStore := func(allowPrivate bool) (*models.Store, models.Actor) {
		cfg := models.DefaultConfig()
		cfg.PasswordCost = 4
		cfg.WebhookAllowPrivate = allowPrivate
		store := modelstest.Open(t, models.WithConfig(cfg), models.WithWebhookGuard(netguard.Guard{Resolver: resolver}))
		owner, _ := modelstest.Owner(t, store, "owner@example.com")
		return store, owner.Actor()
	}
	guarded, owner := openStore(false)
	lenient, ownerLenient := openStore(true)
	cases := []struct {
		url          string
		allowPrivate bool
		stored       string // "" when refused
	}{
		{"http://2130706433/", false, ""},
		{"https://2130706433/", false, ""},
		{"https://localhost./", false, ""},
		{"https://LocalHost/", false, ""},
		{"https://api.localhost./", false, ""},
		{"https://[64:ff9b::7f00:1]/", false, ""},
		{"https://[64:ff9b::a9fe:a9fe]/", false, ""},
		{"https://[::ffff:127.0.0.1]/", false, ""},
		{"https://[::ffff:7f00:1]/", false, ""},
		{"https://[::ffff:8.8.8.8]/", false, ""},
		{"https://[::1]/", false, ""},
		{"https://[::]/", false, ""},
		{"https://[fe80::1%25eth0]/", false, ""},
		{"https://[fd00::1]/", false, ""},
		{"https://0.0.0.0/", false, ""},
		{"https://0/", false, ""},
		{"https://0177.0.0.1/", false, ""},
		{"https://0x7f.1/", false, ""},
		{"https://0x7F000001/", false, ""},
		{"https://127.1/", false, ""},
		{"https://017700000001/", false, ""},
		{"https://10.0.0.1./", false, ""},
		{"https://169.254.169.254/", false, ""},
		{"https://100.64.0.1/", false, ""},
		{"https://1.2.3.999/", false, ""},
		{"https://256.1.1.1/", false, ""},
		{"https://1.2.3.4.5/", false, ""},
		{"https://hooks.123/", false, ""},
		{"https://internal.example.com/", false, ""},
		{"https://mixed.example.com/", false, ""},
		{"https://mapped.example.com/", false, ""},
		{"https://hooks.example.com/a", false, "https://hooks.example.com/a"},
		{"https://example.com./a", false, "https://example.com./a"},
		{"https://v6.example.com:8443/", false, "https://v6.example.com:8443/"},
		{"https://unknown.example.com/", false, "https://unknown.example.com/"},
		{"https://slow.example.com/", false, "https://slow.example.com/"},
		{"https://8.8.8.8/", false, "https://8.8.8.8/"},
		{"https://0x08080808/", false, "https://8.8.8.8/"},
		{"https://134744072:8443/x", false, "https://8.8.8.8:8443/x"},
		{"https://[2606:4700:0::1111]/", false, "https://[2606:4700::1111]/"},
		{"http://0x7f.1:8080/", true, "http://127.0.0.1:8080/"},
		{"https://internal.example.com/", true, "https://internal.example.com/"},
		{"https://localhost./", true, "https://localhost./"},
		{"https://1.2.3.999/", true, ""},
		// Hosts are read as UTS-46 (IDNA) lookup maps them, as the
		// dialer's resolver will: full-width digits and dots, circled
		// letters and mixed-case punycode name what they map to.
		{"https://127。0。0。1/", false, ""},
		{"https://127．0．0．1/", false, ""},
		{"https://127｡0｡0｡1/", false, ""},
		{"https://１２７.０.０.１/", false, ""},
		{"https://①②⑦.0.0.1/", false, ""},
		{"https://ⓛⓞⓒⓐⓛⓗⓞⓢⓣ/", false, ""},
		{"https://ⓛⓞⓒⓐⓛⓗⓞⓢⓣ。/", false, ""},
		{"https://api.ⓛⓞⓒⓐⓛⓗⓞⓢⓣ/", false, ""},
		{"https://ＬＯＣＡＬＨＯＳＴ/", false, ""},
		{"https://%E2%93%9B%E2%93%9E%E2%93%92%E2%93%90%E2%93%9B%E2%93%97%E2%93%9E%E2%93%A2%E2%93%A3/", false, ""},
		{"https://1０.0.0.1/", false, ""},
		{"https://xn--zz.example.com/", false, ""},
		{"https://xn--vuhdqncpe6aj/", false, ""},          // ⓛⓞⓒⓐⓛⓗⓞⓢⓣ, raw punycode
		{"https://XN--127001-RR3EBB/", false, ""},         // 127。0。0。1, raw punycode
		{"https://xn--mi7cdqncpe6aj.example/", false, ""}, // ｌｏｃａｌｈｏｓｔ, raw punycode
		{"https://xn--a.example.com/", false, ""},
		{"https://a‍b.example.com/", false, ""},
		{"https://exa mple.com/", false, ""},
		{"https://[::１]/", false, ""},
		{"https://ⓗⓞⓞⓚⓢ.example.com/x", false, "https://hooks.example.com/x"},
		{"https://hooks。example。com/", false, "https://hooks.example.com/"},
		{"https://bücher.example/", false, "https://xn--bcher-kva.example/"},
		{"https://BÜCHER.example:8443/a?b=c", false, "https://xn--bcher-kva.example:8443/a?b=c"},
		{"https://XN--BCHER-KVA.example/", false, "https://xn--bcher-kva.example/"},
		{"https://Xn--Bcher-Kva.Example./", false, "https://xn--bcher-kva.example./"},
		{"https://ｈｏｏｋｓ．ｅｘａｍｐｌｅ．ｃｏｍ/", false, "https://hooks.example.com/"},
		{"https://[2606:4700::1111]:8443/", false, "https://[2606:4700::1111]:8443/"},
		{"https://ⓛⓞⓒⓐⓛⓗⓞⓢⓣ/", true, "https://localhost/"},
	}
	for _, tc := range cases {
		store, actor := guarded, owner
		if tc.allowPrivate {
			store, actor = lenient, ownerLenient
		}
		e, _, err := store.SetWebhook(t.Context(), actor, models.SetWebhookInput{URL: tc.url})
		switch e2, _ := models.AsError(err); {
		case tc.stored == "":
			if e2 == nil || e2.Code != models.CodeInvalidParameters || e2.Fields["url"] == "" {
				t.Errorf("%s (allow private %v): error %v, want the url field refused", tc.url, tc.allowPrivate, err)
			}
		case err != nil:
			t.Errorf("%s (allow private %v): %v", tc.url, tc.allowPrivate, err)
		case e.URL != tc.stored:
			t.Errorf("%s stored as %s, want %s", tc.url, e.URL, tc.stored)
		}
	}
	if wait := time.Duration(resolver.slowWaitMax.Load()); wait <= 0 || wait > 5*time.Second {
		t.Fatalf("a slow lookup was given %v", wait)
	}
}

// A store given no webhook guard judges no destination, so it accepts
// none: not an internal one, not a public one, even with private
// destinations allowed.
func TestStoreWithoutWebhookGuardRefusesEveryURL(t *testing.T) {
	ctx := t.Context()
	db := openRaw(t, modelstest.DSN(t))
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	cfg := modelstest.Config()
	cfg.WebhookAllowPrivate = true
	store := models.NewStore(db, models.WithConfig(cfg))
	owner, _ := modelstest.Owner(t, store, "owner@example.com")
	for _, url := range []string{"https://hooks.example.com/", "http://127.0.0.1:8080/"} {
		_, _, err := store.SetWebhook(ctx, owner.Actor(), models.SetWebhookInput{URL: url})
		if e, _ := models.AsError(err); e == nil || e.Code != models.CodeInvalidParameters || !strings.Contains(e.Fields["url"], "no check") {
			t.Errorf("%s without a guard: %v, want the url field refused for want of a check", url, err)
		}
	}
}
