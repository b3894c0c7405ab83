package api_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// etagged is one of the objects that carry an ETag: how to read it, and
// a write of it whose body differs by n.
type etagged struct {
	name  string
	path  func(e *env) string
	write func(n int) (method string, body any)
}

func httpsRule(port int) []models.FirewallRule {
	return []models.FirewallRule{{Protocol: "tcp", PortRange: []int{port, port}, SourceNetwork: "0.0.0.0/0"}}
}

var etaggedObjects = []etagged{
	{name: "inbound rules", path: func(*env) string { return "/api/v1/firewall-rules" },
		write: func(n int) (string, any) { return http.MethodPut, map[string]any{"data": httpsRule(1000 + n)} }},
	{name: "global ruleset", path: func(*env) string { return "/api/v1/firewall-rulesets/global" },
		write: func(n int) (string, any) { return http.MethodPatch, map[string]any{"rules": httpsRule(1000 + n)} }},
	{name: "ruleset", path: func(e *env) string { return "/api/v1/firewall-rulesets/" + e.createRuleset(e.key, "web").ID },
		write: func(n int) (string, any) {
			return http.MethodPatch, map[string]any{"name": fmt.Sprintf("web-%d", n), "rules": httpsRule(1000 + n)}
		}},
}

func TestETagChangesOnEveryWriteAndIfMatchGuardsIt(t *testing.T) {
	for _, o := range etaggedObjects {
		t.Run(o.name, func(t *testing.T) {
			e := newEnv(t)
			path := o.path(e)
			first := e.do(http.MethodGet, path, nil).expect(http.StatusOK)
			tag := first.Header.Get("ETag")
			if len(tag) < 3 || tag[0] != '"' || tag[len(tag)-1] != '"' {
				t.Fatalf("ETag %q is not a strong, quoted tag", tag)
			}

			method, body := o.write(1)
			saved := e.doWith(method, path, body, "If-Match", tag).expect(http.StatusOK)
			newTag := saved.Header.Get("ETag")
			if newTag == "" || newTag == tag {
				t.Fatalf("ETag after a write %q, before %q: want a new one", newTag, tag)
			}
			if got := e.do(http.MethodGet, path, nil).expect(http.StatusOK).Header.Get("ETag"); got != newTag {
				t.Fatalf("GET answers ETag %q, the write answered %q", got, newTag)
			}
			before := e.do(http.MethodGet, path, nil).Body

			// The old tag, a weak one and another tag no longer match: 412, nothing changed.
			for _, stale := range []string{tag, "W/" + newTag, `"x"`} {
				method, body = o.write(2)
				e.doWith(method, path, body, "If-Match", stale).expectError(http.StatusPreconditionFailed, models.CodePreconditionFailed)
			}
			if after := e.do(http.MethodGet, path, nil).Body; string(after) != string(before) {
				t.Fatalf("a refused write changed the object:\n%s\n%s", before, after)
			}

			// A list holding the current tag matches; so does *; so does no If-Match (today's behaviour).
			method, body = o.write(3)
			tag = e.doWith(method, path, body, "If-Match", tag+", "+newTag).expect(http.StatusOK).Header.Get("ETag")
			method, body = o.write(4)
			e.doWith(method, path, body, "If-Match", "*").expect(http.StatusOK)
			method, body = o.write(5)
			last := e.do(method, path, body).expect(http.StatusOK)
			if last.Header.Get("ETag") == tag {
				t.Fatalf("writes without If-Match left the ETag at %s", tag)
			}
		})
	}
}

func TestIfMatchOnAWriteThatChangesNothing(t *testing.T) {
	e := newEnv(t)
	tag := e.do(http.MethodGet, "/api/v1/firewall-rulesets/global", nil).Header.Get("ETag")
	e.doWith(http.MethodPatch, "/api/v1/firewall-rulesets/global", map[string]any{}, "If-Match", tag).expect(http.StatusOK)
	e.doWith(http.MethodPatch, "/api/v1/firewall-rulesets/global", map[string]any{}, "If-Match", `"999"`).
		expectError(http.StatusPreconditionFailed, models.CodePreconditionFailed)
	r := e.createRuleset(e.key, "web")
	e.doWith(http.MethodPatch, "/api/v1/firewall-rulesets/"+r.ID, map[string]any{}, "If-Match", `"999"`).
		expectError(http.StatusPreconditionFailed, models.CodePreconditionFailed)
	// A missing ruleset is 404 whatever If-Match says.
	e.doWith(http.MethodPatch, "/api/v1/firewall-rulesets/"+models.NewID(), map[string]any{"name": "x"}, "If-Match", `"1"`).
		expectError(http.StatusNotFound, models.CodeNotFound)
}

// Many writers that read the same ETag: exactly one wins, the others are
// told 412 and change nothing.
func TestConcurrentWritersWithOneETagExactlyOneWins(t *testing.T) {
	for _, o := range etaggedObjects {
		t.Run(o.name, func(t *testing.T) {
			e := newEnv(t)
			path := o.path(e)
			tag := e.do(http.MethodGet, path, nil).expect(http.StatusOK).Header.Get("ETag")
			requests := make([]*http.Request, 20)
			for i := range requests {
				method, body := o.write(i)
				requests[i] = e.request(method, path, body, "If-Match", tag)
			}
			codes := map[int]int{}
			for _, r := range e.sendAll(requests) {
				codes[r.Status]++
			}
			if codes[http.StatusOK] != 1 || codes[http.StatusPreconditionFailed] != 19 {
				t.Fatalf("outcomes by status %v on %s, want one 200 and 19 412s", codes, modelstest.Backend())
			}
		})
	}
}

// ifMatchCases are If-Match values for an object whose ETag is "v" (v is
// its version, at least 1) and the answer each gets: 0 for a match, 412
// for a well-formed list that does not hold the ETag (strong comparison:
// a weak tag or another spelling of the number never matches), 400 for a
// header that is no entity-tag list at all.
func ifMatchCases(v string) []struct {
	header string
	status int
} {
	return []struct {
		header string
		status int
	}{
		{`"0` + v + `"`, http.StatusPreconditionFailed},
		{`"+` + v + `"`, http.StatusPreconditionFailed},
		{`"-` + v + `"`, http.StatusPreconditionFailed},
		{`"` + v + `.0"`, http.StatusPreconditionFailed},
		{`W/"` + v + `"`, http.StatusPreconditionFailed},
		{`""`, http.StatusPreconditionFailed},
		{`"99999999999999999999` + v + `"`, http.StatusPreconditionFailed},
		{`"x", W/"` + v + `"`, http.StatusPreconditionFailed},
		{"", http.StatusPreconditionFailed},
		{" , ,", http.StatusPreconditionFailed},
		{`" ` + v + `"`, http.StatusBadRequest},
		{`"` + v + ` "`, http.StatusBadRequest},
		{v, http.StatusBadRequest},
		{`"` + v, http.StatusBadRequest},
		{`"` + v + `"x`, http.StatusBadRequest},
		{`w/"` + v + `"`, http.StatusBadRequest},
		{`W/ "` + v + `"`, http.StatusBadRequest},
		{`*, "` + v + `"`, http.StatusBadRequest},
		{`"` + v + `" "` + v + `"`, http.StatusBadRequest},
		{`"a"b", "` + v + `"`, http.StatusBadRequest},
		{"garbage", http.StatusBadRequest},
		{`"x",, "` + v + `" ,`, 0},
		{`"` + v + `"`, 0},
	}
}

// If-Match is read strictly (RFC 9110 entity-tags, the version a canonical
// decimal) on every write of every object with an ETag, and a refused
// write changes nothing.
func TestIfMatchIsParsedStrictly(t *testing.T) {
	for _, o := range etaggedObjects {
		t.Run(o.name, func(t *testing.T) {
			e := newEnv(t)
			path := o.path(e)
			for i := range ifMatchCases("1") {
				tc := ifMatchCases(e.version(path))[i] // a match moved the version on
				before := e.do(http.MethodGet, path, nil).Body
				method, body := o.write(i)
				r := e.doWith(method, path, body, "If-Match", tc.header)
				switch tc.status {
				case 0:
					r.expect(http.StatusOK)
					continue
				case http.StatusBadRequest:
					r.expectError(http.StatusBadRequest, models.CodeInvalidParameters)
					if !strings.Contains(r.message(), "If-Match") {
						t.Errorf("If-Match %s: message %q does not name the header", tc.header, r.message())
					}
				default:
					r.expectError(tc.status, models.CodePreconditionFailed)
				}
				if after := e.do(http.MethodGet, path, nil).Body; string(after) != string(before) {
					t.Fatalf("If-Match %s: a refused write changed the object", tc.header)
				}
			}
		})
	}
}

// DELETE of a ruleset honours If-Match as its PATCH does: a stale or
// non-matching tag is 412 and the ruleset stays; the current one deletes.
func TestDeleteRulesetHonoursIfMatch(t *testing.T) {
	e := newEnv(t)
	path := "/api/v1/firewall-rulesets/" + e.createRuleset(e.key, "web").ID
	stale := e.do(http.MethodGet, path, nil).Header.Get("ETag")
	e.doWith(http.MethodPatch, path, map[string]any{"name": "web-2"}, "If-Match", stale).expect(http.StatusOK)
	e.doWith(http.MethodDelete, path, nil, "If-Match", stale).expectError(http.StatusPreconditionFailed, models.CodePreconditionFailed)
	for _, tc := range ifMatchCases(e.version(path)) {
		if tc.status == 0 {
			continue
		}
		r := e.doWith(http.MethodDelete, path, nil, "If-Match", tc.header)
		if tc.status == http.StatusBadRequest {
			r.expectError(http.StatusBadRequest, models.CodeInvalidParameters)
		} else {
			r.expectError(tc.status, models.CodePreconditionFailed)
		}
		e.do(http.MethodGet, path, nil).expect(http.StatusOK)
	}
	current := e.do(http.MethodGet, path, nil).Header.Get("ETag")
	e.doWith(http.MethodDelete, path, nil, "If-Match", current).expect(http.StatusOK)
	e.do(http.MethodGet, path, nil).expectError(http.StatusNotFound, models.CodeNotFound)
	// A missing ruleset is 404 whatever If-Match says.
	e.doWith(http.MethodDelete, path, nil, "If-Match", current).expectError(http.StatusNotFound, models.CodeNotFound)
}

// Of many deletes holding one ETag and a PATCH with it, exactly one wins.
func TestDeleteAndPatchWithOneETagExactlyOneWins(t *testing.T) {
	e := newEnv(t)
	path := "/api/v1/firewall-rulesets/" + e.createRuleset(e.key, "web").ID
	tag := e.do(http.MethodGet, path, nil).Header.Get("ETag")
	requests := []*http.Request{e.request(http.MethodPatch, path, map[string]any{"name": "web-2"}, "If-Match", tag)}
	for range 10 {
		requests = append(requests, e.request(http.MethodDelete, path, nil, "If-Match", tag))
	}
	codes := map[int]int{}
	for _, r := range e.sendAll(requests) {
		codes[r.Status]++
	}
	if codes[http.StatusOK] != 1 || codes[http.StatusPreconditionFailed]+codes[http.StatusNotFound] != 10 {
		t.Fatalf("outcomes by status %v on %s, want one 200 and the rest 412 or 404", codes, modelstest.Backend())
	}
}

// version is the object's version, read from its ETag.
func (e *env) version(path string) string {
	e.t.Helper()
	tag := e.do(http.MethodGet, path, nil).expect(http.StatusOK).Header.Get("ETag")
	return strings.Trim(tag, `"`)
}
