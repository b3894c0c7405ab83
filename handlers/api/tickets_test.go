package api_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

type ticketBody struct {
	ID          string  `json:"id"`
	Subject     string  `json:"subject"`
	Description string  `json:"description"`
	Type        string  `json:"type"`
	Severity    *string `json:"severity"`
	Status      string  `json:"status"`
	CreatedAt   string  `json:"created_at"`
	UpdatedAt   string  `json:"updated_at"`
	ResolvedAt  *string `json:"resolved_at"`
	Comments    []struct {
		Body, Author string
	} `json:"comments"`
}

type ticketList struct {
	Tickets   []ticketBody `json:"tickets"`
	PageToken *string      `json:"page_token"`
}

func (e *env) createTicket(body string) string {
	e.t.Helper()
	var created struct{ ID string }
	e.do(http.MethodPost, "/api/v1/tickets", body).expect(http.StatusOK).data(&created)
	return created.ID
}

func (e *env) getTicket(id string) ticketBody {
	e.t.Helper()
	var tk ticketBody
	e.do(http.MethodGet, "/api/v1/tickets/"+id, nil).expect(http.StatusOK).data(&tk)
	return tk
}

const incidentBody = `{"subject": "GPU slow", "description": "Since noon.", "type": "incident", "severity": "sev_2"}`

func TestCreateTicketScenarios(t *testing.T) {
	e := newEnv(t)
	cases := []struct {
		name   string
		body   string
		status int
		field  string // named in the error message
	}{
		{"incident", incidentBody, 200, ""},
		{"service request", `{"subject": "More GPUs", "description": "Please.", "type": "service_request"}`, 200, ""},
		{"affected resources", `{"subject": "s", "description": "d", "type": "service_request", "ip": "192.0.2.1", "cluster_id": "` + models.NewID() + `"}`, 200, ""},
		{"unknown fields ignored", `{"subject": "s", "description": "d", "type": "service_request", "priority": 1}`, 200, ""},
		{"subject missing", `{"description": "d", "type": "service_request"}`, 400, "subject"},
		{"description missing", `{"subject": "s", "type": "service_request"}`, 400, "description"},
		{"type missing", `{"subject": "s", "description": "d"}`, 400, "type"},
		{"incident without severity", `{"subject": "s", "description": "d", "type": "incident"}`, 400, "severity"},
		{"service request with severity", `{"subject": "s", "description": "d", "type": "service_request", "severity": "sev_1"}`, 400, "severity"},
		{"unknown severity", `{"subject": "s", "description": "d", "type": "incident", "severity": "high"}`, 400, "severity"},
		{"subject of the wrong type", `{"subject": 5, "description": "d", "type": "service_request"}`, 400, "subject"},
		{"bad ip", `{"subject": "s", "description": "d", "type": "service_request", "ip": "nope"}`, 400, "ip"},
		{"instance of no one", `{"subject": "s", "description": "d", "type": "service_request", "instance_id": "` + models.NewID() + `"}`, 400, "instance_id"},
		{"malformed json", `{"subject": `, 400, ""},
		{"empty body", ``, 400, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := e.do(http.MethodPost, "/api/v1/tickets", tc.body)
			if tc.status == 200 {
				var created struct {
					ID        string `json:"id"`
					Status    string `json:"status"`
					CreatedAt string `json:"created_at"`
				}
				r.expect(200).data(&created)
				if !models.IsID(created.ID) || created.Status != "open" || created.CreatedAt == "" {
					t.Fatalf("created %+v", created)
				}
				return
			}
			r.expectError(tc.status, models.CodeInvalidParameters)
			if !strings.Contains(r.message(), tc.field) {
				t.Fatalf("message %q does not name %q", r.message(), tc.field)
			}
		})
	}
}

func TestTicketLifecycleThroughTheAPI(t *testing.T) {
	e := newEnv(t)
	id := e.createTicket(incidentBody)
	tk := e.getTicket(id)
	if tk.Status != "open" || tk.Type != "incident" || *tk.Severity != "sev_2" || tk.ResolvedAt != nil ||
		len(tk.Comments) != 1 || tk.Comments[0].Body != "Since noon." || tk.Comments[0].Author != "owner@example.com" {
		t.Fatalf("new ticket %+v", tk)
	}
	cases := []struct {
		name   string
		body   string
		status int
		field  string
	}{
		{"comment", `{"comment": {"body": "Still slow."}}`, 202, ""},
		{"severity", `{"severity": "sev_1"}`, 202, ""},
		{"nothing", `{}`, 400, "status, severity or comment"},
		{"owner cannot set pending", `{"status": "pending"}`, 400, "status"},
		{"comment without body", `{"comment": {}}`, 400, "comment.body"},
		{"comment of the wrong type", `{"comment": "text"}`, 400, "comment"},
		{"solve", `{"status": "solved", "comment": {"body": "Fixed it."}}`, 202, ""},
		{"solve again", `{"status": "solved"}`, 202, ""},
	}
	for _, tc := range cases {
		r := e.do(http.MethodPatch, "/api/v1/tickets/"+id, tc.body)
		if tc.status == 202 {
			if r.expect(202); strings.TrimSpace(string(r.Body)) != `{"data":{}}` {
				t.Fatalf("%s: body %s", tc.name, r.Body)
			}
			continue
		}
		r.expectError(tc.status, models.CodeInvalidParameters)
		if !strings.Contains(r.message(), tc.field) {
			t.Fatalf("%s: message %q does not name %q", tc.name, r.message(), tc.field)
		}
	}
	tk = e.getTicket(id)
	if tk.Status != "solved" || tk.ResolvedAt == nil || *tk.Severity != "sev_1" || len(tk.Comments) != 3 {
		t.Fatalf("solved ticket %+v", tk)
	}
	// Support closes it: the API still reads solved, and nothing changes it.
	closed := "closed"
	if _, err := e.store.UpdateTicket(context.Background(), models.OperatorActor, id, models.UpdateTicketInput{Status: &closed}); err != nil {
		t.Fatal(err)
	}
	if tk = e.getTicket(id); tk.Status != "solved" {
		t.Fatalf("a closed ticket reads %q", tk.Status)
	}
	r := e.do(http.MethodPatch, "/api/v1/tickets/"+id, `{"comment": {"body": "Hello?"}}`).expectError(400, models.CodeInvalidParameters)
	if !strings.Contains(r.message(), "closed") {
		t.Fatalf("message %q", r.message())
	}
}

// Another account's ticket answers exactly like one that does not exist:
// the reference's global/not-found with its suggestion.
func TestTicketNotFound(t *testing.T) {
	e := newEnv(t)
	_, otherKey := modelstest.Owner(t, e.store, "other@example.com")
	var created struct{ ID string }
	e.doAs(otherKey, http.MethodPost, "/api/v1/tickets", incidentBody).expect(200).data(&created)
	for _, id := range []string{created.ID, models.NewID(), "not-a-ticket"} {
		for _, method := range []string{http.MethodGet, http.MethodPatch} {
			r := e.do(method, "/api/v1/tickets/"+id, `{"status": "solved"}`).expectError(http.StatusNotFound, models.CodeTicketNotFound)
			var body struct{ Error struct{ Suggestion string } }
			r.decode(&body)
			if body.Error.Suggestion == "" {
				t.Fatalf("%s %s: no suggestion: %s", method, id, r.Body)
			}
		}
	}
	if tk := e.doAs(otherKey, http.MethodGet, "/api/v1/tickets/"+created.ID, nil).expect(200); tk == nil {
		t.Fatal("owner cannot read their ticket")
	}
}

func TestListTicketsThroughTheAPI(t *testing.T) {
	e := newEnv(t)
	incident := e.createTicket(incidentBody)
	e.clock.Advance(time.Second)
	request := e.createTicket(`{"subject": "More GPUs", "description": "Please.", "type": "service_request"}`)
	e.clock.Advance(time.Second)
	e.do(http.MethodPatch, "/api/v1/tickets/"+request, `{"status": "solved"}`).expect(202)
	e.clock.Advance(time.Second)
	e.do(http.MethodPatch, "/api/v1/tickets/"+incident, `{"comment": {"body": "touch"}}`).expect(202)
	list := func(query string) []string {
		t.Helper()
		var page ticketList
		e.do(http.MethodGet, "/api/v1/tickets"+query, nil).expect(200).data(&page)
		ids := []string{}
		for _, tk := range page.Tickets {
			ids = append(ids, tk.ID)
		}
		return ids
	}
	cases := []struct {
		query string
		want  []string
	}{
		{"", []string{request, incident}},
		{"?direction=asc", []string{incident, request}},
		{"?order_by=updated_at&direction=desc", []string{incident, request}},
		{"?order_by=updated_at&direction=asc", []string{request, incident}},
		{"?status=open", []string{incident}},
		{"?status=solved&status=open", []string{request, incident}},
		{"?status=solved,pending", []string{request}},
		{"?type=service_request", []string{request}},
		{"?severity=sev_2", []string{incident}},
		{"?severity=sev_1", []string{}},
		{"?type=automated_event", []string{}},
	}
	for _, tc := range cases {
		if got := list(tc.query); strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%s: %v, want %v", tc.query, got, tc.want)
		}
	}
	for query, field := range map[string]string{
		"?status=closed":       "status",
		"?type=bug":            "type",
		"?severity=sev_9":      "severity",
		"?order_by=subject":    "order_by",
		"?direction=sideways":  "direction",
		"?page_token=abc.def":  "page_token",
		"?page_token=" + "%20": "page_token",
	} {
		r := e.do(http.MethodGet, "/api/v1/tickets"+query, nil).expectError(400, models.CodeInvalidParameters)
		if !strings.Contains(r.message(), field) {
			t.Errorf("%s: message %q does not name %s", query, r.message(), field)
		}
	}
}

// A full page carries a page token; the next page ends with null. A token
// with one byte changed is refused.
func TestListTicketsPages(t *testing.T) {
	e := newEnv(t)
	sev := "sev_3"
	for i := 0; i < models.TicketPageSize+1; i++ {
		if _, err := e.store.CreateTicket(context.Background(), e.owner.Actor(), models.CreateTicketInput{
			Subject: "t", Description: "d", Type: models.TicketIncident, Severity: &sev}); err != nil {
			t.Fatal(err)
		}
	}
	var first, second ticketList
	e.do(http.MethodGet, "/api/v1/tickets", nil).expect(200).data(&first)
	if len(first.Tickets) != models.TicketPageSize || first.PageToken == nil {
		t.Fatalf("first page: %d tickets, token %v", len(first.Tickets), first.PageToken)
	}
	e.do(http.MethodGet, "/api/v1/tickets?page_token="+url.QueryEscape(*first.PageToken), nil).expect(200).data(&second)
	if len(second.Tickets) != 1 || second.PageToken != nil {
		t.Fatalf("second page: %d tickets, token %v", len(second.Tickets), second.PageToken)
	}
	tampered := []byte(*first.PageToken)
	tampered[len(tampered)-2] ^= 1
	e.do(http.MethodGet, "/api/v1/tickets?page_token="+url.QueryEscape(string(tampered)), nil).
		expectError(400, models.CodeInvalidParameters)
}
