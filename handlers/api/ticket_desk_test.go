package api_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"cloudplane/models"
)

// Internal notes and assignments are the support desk's: the API's ticket
// answers (checked against the reference) carry neither, and its owners
// cannot sort or filter by them.
func TestTicketAnswersHoldNoInternalNotes(t *testing.T) {
	e := newEnv(t)
	id := e.createTicket(incidentBody)
	ctx := context.Background()
	help, err := e.store.CreateUser(ctx, models.OperatorActor,
		models.CreateUserInput{Email: "help@example.com", Password: "support password", Role: models.RoleSupport})
	if err != nil {
		t.Fatal(err)
	}
	const note = "owner looks like a reseller"
	if _, err := e.store.AddTicketNote(ctx, help.Actor(), id, note); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.AssignTicket(ctx, help.Actor(), id, models.AssignTicketInput{Assignee: help.ID}); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/api/v1/tickets/" + id, "/api/v1/tickets"} {
		body := string(e.do(http.MethodGet, path, nil).expect(http.StatusOK).Body)
		if strings.Contains(body, note) || strings.Contains(body, "help@example.com") || strings.Contains(body, help.ID) {
			t.Fatalf("%s reveals the support desk: %s", path, body)
		}
	}
	e.do(http.MethodGet, "/api/v1/tickets?order_by=assignee", nil).expectError(400, models.CodeInvalidParameters)
}
