package api_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	"cloudplane/handlers/api"
	"cloudplane/models"
	"cloudplane/models/modelstest"
)

type auditEvent struct {
	EventID      string `json:"event_id"`
	EventTime    string `json:"event_time"`
	ServiceName  string `json:"service_name"`
	ResourceName string `json:"resource_name"`
}

type auditPage struct {
	Data      []auditEvent `json:"data"`
	PageToken *string      `json:"page_token"`
}

// auditAt is where the seeded audit events start, well after the fixtures'
// own events (written at the env clock's start).
var auditAt = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// seedAudit inserts one event of resource in the account per time, as rows,
// since no domain operation can write events at chosen times.
func seedAudit(t *testing.T, store *models.Store, accountID, resource string, times ...time.Time) []models.AuditEvent {
	t.Helper()
	owner := "lrn:cloud:account:" + accountID
	rows := make([]models.AuditEvent, len(times))
	for i, at := range times {
		rows[i] = models.AuditEvent{ID: models.NewID(), AccountID: accountID, EventTime: at.UTC(),
			ServiceName: models.AuditServiceName, ResourceName: resource, Action: "created",
			CatalogVersion: models.AuditCatalogVersion, ResourceLRNs: []string{"lrn:cloud:" + resource + ":" + models.NewID()},
			ResourceOwnerLRN: &owner, AdditionalDetails: models.AuditDetails(fmt.Sprintf(`{"seq": %d}`, i))}
	}
	if err := store.DB().CreateInBatches(rows, 100).Error; err != nil {
		t.Fatal(err)
	}
	return rows
}

// repeat returns n copies of at.
func repeat(at time.Time, n int) []time.Time {
	ts := make([]time.Time, n)
	for i := range ts {
		ts[i] = at
	}
	return ts
}

// accountEventIDs is every event of the account, in the order the API
// promises: (event_time, id).
func accountEventIDs(t *testing.T, store *models.Store, accountID string) []string {
	t.Helper()
	var rows []models.AuditEvent
	if err := store.DB().Where("account_id = ?", accountID).Find(&rows).Error; err != nil {
		t.Fatal(err)
	}
	return orderedIDs(rows)
}

// orderedIDs sorts events as the API promises, by (event_time, id), and
// returns their ids.
func orderedIDs(rows []models.AuditEvent) []string {
	sort.Slice(rows, func(i, j int) bool {
		if !rows[i].EventTime.Equal(rows[j].EventTime) {
			return rows[i].EventTime.Before(rows[j].EventTime)
		}
		return rows[i].ID < rows[j].ID
	})
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	return ids
}

func (e *env) auditPage(key string, q url.Values) auditPage {
	e.t.Helper()
	var p auditPage
	e.doAs(key, http.MethodGet, "/api/v1/audit-events?"+q.Encode(), nil).expect(http.StatusOK).decode(&p)
	return p
}

// auditWalk follows page tokens to the end and returns every event and the
// size of each page.
func (e *env) auditWalk(key string, q url.Values) (events []auditEvent, sizes []int) {
	e.t.Helper()
	for {
		p := e.auditPage(key, q)
		events = append(events, p.Data...)
		sizes = append(sizes, len(p.Data))
		if p.PageToken == nil {
			return events, sizes
		}
		if len(sizes) > 100 {
			e.t.Fatalf("more than 100 pages")
		}
		q.Set("page_token", *p.PageToken)
	}
}

func eventIDs(events []auditEvent) []string {
	ids := make([]string, len(events))
	for i, ev := range events {
		ids[i] = ev.EventID
	}
	return ids
}

func sameIDs(t *testing.T, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d events, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("event %d is %s, want %s", i, got[i], want[i])
		}
	}
}

// 250 events, 120 of them at one instant (a tie wider than a page), the
// rest in small ties and microseconds apart, interleaved with another
// account's events at the same instants: walking the pages yields each of
// the account's events exactly once, in order.
func TestAuditEventsPagesWithoutGapOrDuplicate(t *testing.T) {
	e := newEnv(t)
	_, otherKey := modelstest.Owner(t, e.store, "other@example.com")
	accountID := *e.owner.AccountID
	times := repeat(auditAt, 120)
	for i := 0; i < 130; i++ {
		times = append(times, auditAt.Add(time.Duration(1+i/7)*time.Microsecond))
	}
	seedAudit(t, e.store, accountID, "filesystem", times...)
	other := otherAccountID(t, e, otherKey)
	seedAudit(t, e.store, other, "filesystem", times[:150]...)

	want := accountEventIDs(t, e.store, accountID)
	got, sizes := e.auditWalk(e.key, url.Values{})
	sameIDs(t, eventIDs(got), want)
	if len(want) <= 250 || len(sizes) != 3 || sizes[0] != 100 || sizes[1] != 100 {
		t.Fatalf("%d events in pages of %v", len(want), sizes)
	}
	for _, ev := range got {
		if _, err := time.Parse(time.RFC3339, ev.EventTime); err != nil || !strings.HasSuffix(ev.EventTime, "Z") {
			t.Fatalf("event_time %q is not RFC 3339 UTC", ev.EventTime)
		}
	}
}

// otherAccountID returns the account of a key, through the API's own
// authentication.
func otherAccountID(t *testing.T, e *env, key string) string {
	t.Helper()
	actor, err := e.store.Authenticate(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	return actor.AccountID
}

// A page that is exactly full ends the list when nothing follows it: its
// page_token is null, not a token to an empty page.
func TestAuditEventsExactlyFullLastPage(t *testing.T) {
	e := newEnv(t)
	accountID := *e.owner.AccountID
	seedAudit(t, e.store, accountID, "instance", repeat(auditAt, 200)...)
	got, sizes := e.auditWalk(e.key, url.Values{"resource_type": {"cloud.instance"}})
	if len(got) != 200 || len(sizes) != 2 || sizes[1] != 100 {
		t.Fatalf("%d events in pages of %v, want 200 in two full pages", len(got), sizes)
	}
	p := e.auditPage(e.key, url.Values{"start": {auditAt.Format(time.RFC3339)}, "resource_type": {"cloud.instance"},
		"end": {auditAt.Format(time.RFC3339)}})
	if len(p.Data) != 100 || p.PageToken == nil {
		t.Fatalf("first of two full pages: %d events, token %v", len(p.Data), p.PageToken)
	}
}

// start and end are inclusive to the microsecond, whatever the precision
// or offset they are written with.
func TestAuditEventsStartEndInclusive(t *testing.T) {
	e := newEnv(t)
	us := time.Microsecond
	in := seedAudit(t, e.store, *e.owner.AccountID, "filesystem",
		auditAt.Add(-us), auditAt, auditAt, auditAt.Add(time.Second), auditAt.Add(2*time.Second), auditAt.Add(2*time.Second+us))
	ids := func(idx ...int) []string {
		picked := make([]models.AuditEvent, len(idx))
		for i, j := range idx {
			picked[i] = in[j]
		}
		return orderedIDs(picked)
	}
	all := ids(1, 2, 3, 4)
	cases := []struct {
		name       string
		start, end string
		want       []string
	}{
		{"exact bounds", "2026-03-01T12:00:00Z", "2026-03-01T12:00:02Z", all},
		{"microsecond bounds", "2026-03-01T12:00:00.000000Z", "2026-03-01T12:00:02.000000Z", all},
		{"other offset", "2026-03-01T13:00:00+01:00", "2026-03-01T07:00:02-05:00", all},
		{"unencoded plus offset", "2026-03-01T13:00:00 01:00", "2026-03-01T12:00:02Z", all},
		{"start within the microsecond before", "2026-03-01T11:59:59.9999995Z", "2026-03-01T12:00:02Z", all},
		{"end within the microsecond after", "2026-03-01T12:00:00Z", "2026-03-01T12:00:02.0000009Z", all},
		{"start equals end", "2026-03-01T12:00:00Z", "2026-03-01T12:00:00Z", ids(1, 2)},
		{"only end", "", "2026-03-01T11:59:59.999999Z", ids(0)},
		{"only start", "2026-03-01T12:00:02.000001Z", "", ids(5)},
		{"between events", "2026-03-01T12:00:00.5Z", "2026-03-01T12:00:00.9Z", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			q := url.Values{"resource_type": {"cloud.filesystem"}}
			if tc.start != "" {
				q.Set("start", tc.start)
			}
			if tc.end != "" {
				q.Set("end", tc.end)
			}
			got, _ := e.auditWalk(e.key, q)
			sameIDs(t, eventIDs(got), tc.want)
		})
	}
}

func TestAuditEventsResourceTypeFilter(t *testing.T) {
	e := newEnv(t)
	accountID := *e.owner.AccountID
	fs := seedAudit(t, e.store, accountID, "filesystem", auditAt, auditAt.Add(time.Second))
	seedAudit(t, e.store, accountID, "firewall_ruleset", auditAt, auditAt.Add(time.Second))
	cases := []struct {
		resourceType string
		want         int
	}{
		{"cloud.filesystem", 2},
		{"cloud.firewall_ruleset", 2},
		{"cloud.api_key", 1}, // the fixture's key
		{"cloud.no_such_thing", 0},
		{"storage.filesystem", 0},
	}
	for _, tc := range cases {
		t.Run(tc.resourceType, func(t *testing.T) {
			got, _ := e.auditWalk(e.key, url.Values{"resource_type": {tc.resourceType}})
			if len(got) != tc.want {
				t.Fatalf("%d events, want %d", len(got), tc.want)
			}
			service, resource, _ := strings.Cut(tc.resourceType, ".")
			for _, ev := range got {
				if ev.ServiceName != service || ev.ResourceName != resource {
					t.Fatalf("event %+v under filter %s", ev, tc.resourceType)
				}
			}
		})
	}
	got, _ := e.auditWalk(e.key, url.Values{"resource_type": {"cloud.filesystem"}})
	sameIDs(t, eventIDs(got), []string{fs[0].ID, fs[1].ID})
}

// An account without matching events gets data [] and page_token null,
// never nulls or a missing member.
func TestAuditEventsEmpty(t *testing.T) {
	e := newEnv(t)
	r := e.do(http.MethodGet, "/api/v1/audit-events?start=2030-01-01T00:00:00Z", nil).expect(http.StatusOK)
	if !bytes.Equal(r.Body, []byte(`{"data":[],"page_token":null}`)) {
		t.Fatalf("body %s", r.Body)
	}
}

func TestAuditEventsInvalidParameters(t *testing.T) {
	e := newEnv(t)
	seedAudit(t, e.store, *e.owner.AccountID, "filesystem", repeat(auditAt, 101)...)
	token := *e.auditPage(e.key, url.Values{}).PageToken
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		t.Fatalf("token %q is not unpadded base64url: %v", token, err)
	}
	flip := func(i int) string {
		b := bytes.Clone(raw)
		b[i] ^= 1
		return base64.RawURLEncoding.EncodeToString(b)
	}
	cases := []struct {
		name  string
		query string
		field string
	}{
		{"start not a time", "start=yesterday", "start"},
		{"start without offset", "start=2026-03-01T12:00:00", "start"},
		{"start date only", "start=2026-03-01", "start"},
		{"end not a time", "end=2026-13-01T00:00:00Z", "end"},
		{"start after end", "start=2026-03-01T12:00:01Z&end=2026-03-01T12:00:00Z", "start"},
		{"resource_type without service", "resource_type=filesystem", "resource_type"},
		{"resource_type empty resource", "resource_type=cloud.", "resource_type"},
		{"resource_type empty service", "resource_type=.filesystem", "resource_type"},
		{"resource_type upper case", "resource_type=Cloud.Filesystem", "resource_type"},
		{"resource_type two dots", "resource_type=cloud.file.system", "resource_type"},
		{"resource_type space", "resource_type=cloud.file%20system", "resource_type"},
		{"page_token garbage", "page_token=not-a-token", "page_token"},
		{"page_token padded", "page_token=" + token + "%3D", "page_token"},
		{"page_token truncated", "page_token=" + token[:len(token)-2], "page_token"},
		{"page_token extended", "page_token=" + token + "AA", "page_token"},
		{"page_token time altered", "page_token=" + flip(5), "page_token"},
		{"page_token id altered", "page_token=" + flip(20), "page_token"},
		{"page_token mac altered", "page_token=" + flip(len(raw)-1), "page_token"},
		{"page_token version altered", "page_token=" + flip(0), "page_token"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := e.do(http.MethodGet, "/api/v1/audit-events?"+tc.query, nil).
				expectError(http.StatusBadRequest, models.CodeInvalidParameters)
			if !strings.Contains(r.message(), tc.field) {
				t.Fatalf("message %q does not name %s", r.message(), tc.field)
			}
		})
	}
}

// A page token opens only for the account and the filters it was issued
// for; filters that name the same instants in other words are the same.
func TestAuditEventsTokenIsBoundToAccountAndFilters(t *testing.T) {
	e := newEnv(t)
	_, otherKey := modelstest.Owner(t, e.store, "other@example.com")
	seedAudit(t, e.store, *e.owner.AccountID, "filesystem", repeat(auditAt, 150)...)
	seedAudit(t, e.store, otherAccountID(t, e, otherKey), "filesystem", repeat(auditAt, 150)...)
	filters := url.Values{"start": {"2026-03-01T12:00:00Z"}, "end": {"2026-03-02T00:00:00Z"}, "resource_type": {"cloud.filesystem"}}
	token := *e.auditPage(e.key, filters).PageToken

	with := func(key, value string) url.Values {
		q := url.Values{"page_token": {token}}
		for k, v := range filters {
			q[k] = v
		}
		if value == "" {
			q.Del(key)
		} else {
			q.Set(key, value)
		}
		return q
	}
	rejected := []struct {
		name string
		key  string
		q    url.Values
	}{
		{"another account", otherKey, with("page_token", token)},
		{"other start", e.key, with("start", "2026-03-01T11:00:00Z")},
		{"start dropped", e.key, with("start", "")},
		{"other end", e.key, with("end", "2026-03-03T00:00:00Z")},
		{"end dropped", e.key, with("end", "")},
		{"other resource_type", e.key, with("resource_type", "cloud.instance")},
		{"resource_type dropped", e.key, with("resource_type", "")},
	}
	for _, tc := range rejected {
		t.Run(tc.name, func(t *testing.T) {
			r := e.doAs(tc.key, http.MethodGet, "/api/v1/audit-events?"+tc.q.Encode(), nil).
				expectError(http.StatusBadRequest, models.CodeInvalidParameters)
			if !strings.Contains(r.message(), "page_token") {
				t.Fatalf("message %q does not name page_token", r.message())
			}
		})
	}
	same := with("start", "2026-03-01T13:00:00.000+01:00")
	if p := e.auditPage(e.key, same); len(p.Data) != 50 || p.PageToken != nil {
		t.Fatalf("same filters spelled otherwise: %d events, token %v", len(p.Data), p.PageToken)
	}
}

// Events written by domain operations read back with every field the
// reference names (the env checks the shape against it) and their LRNs.
func TestAuditEventsOfDomainOperations(t *testing.T) {
	e := newEnv(t)
	actor, err := e.store.Authenticate(context.Background(), e.key)
	if err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(1500 * time.Microsecond)
	if _, _, err := e.store.CreateAPIKey(context.Background(), actor, models.CreateAPIKeyInput{Name: "ci"}); err != nil {
		t.Fatal(err)
	}
	r := e.do(http.MethodGet, "/api/v1/audit-events?resource_type=cloud.api_key", nil).expect(http.StatusOK)
	var body struct {
		Data []map[string]any `json:"data"`
	}
	r.decode(&body)
	if len(body.Data) != 2 {
		t.Fatalf("%d api_key events, want the fixture's and ours: %s", len(body.Data), r.Body)
	}
	ev := body.Data[1]
	want := map[string]any{
		"service_name": "cloud", "resource_name": "api_key", "action": "created",
		"catalog_version":     models.AuditCatalogVersion,
		"actor_lrn":           "lrn:cloud:user:" + e.owner.ID,
		"resource_owner_lrn":  "lrn:cloud:account:" + *e.owner.AccountID,
		"request_api_key_lrn": "lrn:cloud:api_key:" + actor.APIKeyID,
	}
	for k, v := range want {
		if ev[k] != v {
			t.Errorf("%s = %v, want %v", k, ev[k], v)
		}
	}
	if len(ev) != 11 {
		t.Errorf("event has %d fields, want the reference's 11: %v", len(ev), ev)
	}
	if lrns, _ := ev["resource_lrns"].([]any); len(lrns) != 1 || !strings.HasPrefix(lrns[0].(string), "lrn:cloud:api_key:") {
		t.Errorf("resource_lrns %v", ev["resource_lrns"])
	}
	if ev["event_time"] != "2026-01-02T03:04:05.001500Z" {
		t.Errorf("event_time %v, want the clock's time in UTC to the microsecond", ev["event_time"])
	}
}

// The page answered is byte for byte what encoding/json wrote for the
// store's page, with c.JSON's Content-Type, whatever the events hold and
// however their JSON columns are spelled in the database (spaces, escapes
// another writer chose).
func TestAuditEventsAnswerAsEncodingJSON(t *testing.T) {
	e := newEnv(t)
	accountID := *e.owner.AccountID
	// Three events to spell oddly on the first page, and enough after
	// them for a page_token.
	rows := seedAudit(t, e.store, accountID, "filesystem", append(repeat(auditAt, 3), repeat(auditAt.Add(time.Second), 117)...)...)
	tricky := "<b>&\u2028 \"é\" 日本 🚀 \\ \x01"
	stored := []struct{ lrns, details string }{
		{` [ "lrn:cloud:filesystem:a" , "lrn:cloud:filesystem:b" ] `, "{\n \"note\" : \"<a & b>\u2029\" , \"n\": [1, 2] }"},
		{`["\u003cescaped\u003e \u00e9 \ud83d\ude80", "\n"]`, `{"nested": {"empty": {}, "list": []}}`},
		{`[]`, ``},
	}
	for i, s := range stored {
		if err := e.store.DB().Exec("UPDATE audit_events SET resource_lrns = ?, additional_details = ?, action = ?, actor_lrn = ? WHERE id = ?",
			s.lrns, s.details, tricky, tricky, rows[i].ID).Error; err != nil {
			t.Fatal(err)
		}
	}
	actor, err := e.store.Authenticate(context.Background(), e.key)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []url.Values{{}, {"resource_type": {"cloud.filesystem"}}, {"resource_type": {"cloud.nothing"}}} {
		page, err := e.store.AuditEvents(context.Background(), actor, models.AuditEventsInput{ResourceType: q.Get("resource_type")})
		if err != nil {
			t.Fatal(err)
		}
		want, err := api.ReferenceAuditPage(page)
		if err != nil {
			t.Fatal(err)
		}
		r := e.do(http.MethodGet, "/api/v1/audit-events?"+q.Encode(), nil).expect(http.StatusOK)
		if !bytes.Equal(r.Body, want) {
			t.Fatalf("%v: answered\n%s\nencoding/json writes\n%s", q, r.Body, want)
		}
		if q.Get("resource_type") != "cloud.nothing" && !bytes.Contains(r.Body, []byte(`"page_token":"`)) {
			t.Fatalf("%v: no page_token on a first page of many", q)
		}
		if ct := r.Header.Get("Content-Type"); ct != "application/json" {
			t.Fatalf("Content-Type %q, want c.JSON's application/json", ct)
		}
	}
}
