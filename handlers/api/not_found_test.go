package api_test

import (
	"net/http"
	"sort"
	"strings"
	"testing"

	"cloudplane/handlers/api/apitest"
	"cloudplane/models"
)

// notFoundCase is one operation asked about an object that does not exist.
type notFoundCase struct {
	operation string // "METHOD documented-path", as the documents spell it
	path      string
	body      any
	code      models.Code
}

// Every operation that names an object answers 404, for an object that
// does not exist, with the code the reference declares for that
// operation's 404 (CONTRACT.md, "Error codes"): env.send checks each
// answer against the reference's per-operation codes and cloudplane's
// document, and the table must cover every documented operation that takes
// an id in its path, so a new one cannot be left out.
func TestEveryOperationAnswersItsOwnNotFoundCode(t *testing.T) {
	e := newEnv(t)
	missing := models.NewID()
	ticket := e.createTicket(incidentBody)
	tickets := "/api/v1/tickets/"
	attachments := "/api/v1/tickets/{ticket_id}/attachments/{attachment_id}"
	cases := []notFoundCase{
		{"DELETE /api/v1/ssh-keys/{id}", "/api/v1/ssh-keys/" + missing, nil, models.CodeSSHKeyNotFound},
		{"POST /api/v1/fabric/{id}", "/api/v1/fabric/" + missing, `{"name": "renamed"}`, models.CodeFabricPartitionNotFound},
		{"DELETE /api/v1/fabric/{id}", "/api/v1/fabric/" + missing, nil, models.CodeFabricPartitionNotFound},
		{"DELETE /api/v1/filesystems/{id}", "/api/v1/filesystems/" + missing, nil, models.CodeNotFound},
		{"GET /api/v1/firewall-rulesets/{id}", "/api/v1/firewall-rulesets/" + missing, nil, models.CodeNotFound},
		{"PATCH /api/v1/firewall-rulesets/{id}", "/api/v1/firewall-rulesets/" + missing, `{"name": "renamed"}`, models.CodeNotFound},
		{"DELETE /api/v1/firewall-rulesets/{id}", "/api/v1/firewall-rulesets/" + missing, nil, models.CodeNotFound},
		{"GET /api/v1/instances/{id}", "/api/v1/instances/" + missing, nil, models.CodeNotFound},
		{"POST /api/v1/instances/{id}", "/api/v1/instances/" + missing, `{"name": "renamed"}`, models.CodeNotFound},
		{"POST /api/v1/instance-operations/launch", "/api/v1/instance-operations/launch",
			`{"region_name": "us-east-1", "instance_type_name": "gpu_1x_a10", "ssh_key_names": ["missing"]}`, models.CodeNotFound},
		{"POST /api/v1/instance-operations/restart", "/api/v1/instance-operations/restart",
			`{"instance_ids": ["` + missing + `"]}`, models.CodeNotFound},
		{"POST /api/v1/instance-operations/terminate", "/api/v1/instance-operations/terminate",
			`{"instance_ids": ["` + missing + `"]}`, models.CodeNotFound},
		{"GET /api/v1/tickets/{ticket_id}", tickets + missing, nil, models.CodeTicketNotFound},
		{"PATCH /api/v1/tickets/{ticket_id}", tickets + missing, `{"status": "solved"}`, models.CodeTicketNotFound},
		{"GET /api/v1/tickets/{ticket_id}/attachments", tickets + missing + "/attachments", nil, models.CodeTicketNotFound},
		{"POST /api/v1/tickets/{ticket_id}/attachments", tickets + missing + "/attachments",
			`{"filename": "a.txt", "content_type": "text/plain", "size_bytes": 1}`, models.CodeTicketNotFound},
		// An attachment's operations declare both codes: the ticket's when
		// the ticket is missing, the attachment's when only it is.
		{"DELETE " + attachments, tickets + missing + "/attachments/" + missing, nil, models.CodeTicketNotFound},
		{"DELETE " + attachments, tickets + ticket + "/attachments/" + missing, nil, models.CodeNotFound},
		{"POST " + attachments + "/complete", tickets + missing + "/attachments/" + missing + "/complete", nil, models.CodeTicketNotFound},
		{"POST " + attachments + "/complete", tickets + ticket + "/attachments/" + missing + "/complete", nil, models.CodeNotFound},
		{"GET " + attachments + "/download", tickets + missing + "/attachments/" + missing + "/download", nil, models.CodeTicketNotFound},
		{"GET " + attachments + "/download", tickets + ticket + "/attachments/" + missing + "/download", nil, models.CodeNotFound},
	}
	covered := map[string]bool{}
	for _, c := range cases {
		covered[c.operation] = true
		method, _, _ := strings.Cut(c.operation, " ")
		e.do(method, c.path, c.body).expectError(http.StatusNotFound, c.code)
	}
	if missed := operationsNamingObjects(t, covered); len(missed) > 0 {
		t.Fatalf("operations that name an object but are not in the table: %v", missed)
	}
}

// operationsNamingObjects are the documented operations with an id in
// their path, or one in their body (the instance operations), that are
// not in covered.
func operationsNamingObjects(t *testing.T, covered map[string]bool) []string {
	var missed []string
	for path, item := range apitest.Cloudplane(t).Document().Paths.Map() {
		for method := range item.Operations() {
			op := method + " " + path
			if (strings.Contains(path, "{") || strings.HasPrefix(path, "/api/v1/instance-operations/")) && !covered[op] {
				missed = append(missed, op)
			}
		}
	}
	sort.Strings(missed)
	return missed
}
