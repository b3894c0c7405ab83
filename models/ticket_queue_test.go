package models_test

import (
	"slices"
	"testing"
	"time"

	"cloudplane/models"
)

func TestTicketQueueFiltersAndOrders(t *testing.T) {
	f := newTicketFixture(t)
	second := f.agent("second@example.com")
	open := func(subject string, sev *string) *models.Ticket {
		in := models.CreateTicketInput{Subject: subject, Description: "d", Type: models.TicketServiceRequest}
		if sev != nil {
			in.Type, in.Severity = models.TicketIncident, sev
		}
		tk, err := f.store.CreateTicket(f.ctx, f.owner, in)
		if err != nil {
			t.Fatal(err)
		}
		f.clock.Advance(24 * time.Hour)
		return tk
	}
	oldest := open("oldest sev3", ptr("sev_3"))
	mine := open("mine sev1", ptr("sev_1"))
	theirs := open("theirs request", nil)
	open("newest sev1", ptr("sev_1"))
	f.assign(f.support, mine.ID, models.AssignTicketInput{Assignee: f.support.UserID})
	f.assign(f.support, theirs.ID, models.AssignTicketInput{Assignee: second.UserID})
	f.store.UpdateTicket(f.ctx, f.support, oldest.ID, models.UpdateTicketInput{Status: ptr(models.TicketPending)})
	f.store.UpdateTicket(f.ctx, f.support, theirs.ID, models.UpdateTicketInput{Status: ptr(models.TicketOpen)})

	for _, c := range []struct {
		name   string
		filter models.TicketFilter
		want   []string
	}{
		{"mine", models.TicketFilter{Assignee: models.TicketMine}, []string{"mine sev1"}},
		{"unassigned", models.TicketFilter{Assignee: models.TicketUnassigned}, []string{"newest sev1", "oldest sev3"}},
		{"one agent", models.TicketFilter{Assignee: second.UserID}, []string{"theirs request"}},
		{"older than two days", models.TicketFilter{MinAge: 48 * time.Hour, Direction: "asc"}, []string{"oldest sev3", "mine sev1", "theirs request"}},
		{"severity, then oldest", models.TicketFilter{OrderBy: "severity", Direction: "asc"},
			[]string{"mine sev1", "newest sev1", "oldest sev3", "theirs request"}},
		{"severity descending", models.TicketFilter{OrderBy: "severity"},
			[]string{"theirs request", "oldest sev3", "newest sev1", "mine sev1"}},
		{"status", models.TicketFilter{OrderBy: "status", Direction: "asc"},
			[]string{"mine sev1", "newest sev1", "theirs request", "oldest sev3"}},
		{"assignee, unassigned first", models.TicketFilter{OrderBy: "assignee", Direction: "asc"},
			[]string{"oldest sev3", "newest sev1", "mine sev1", "theirs request"}},
		{"sev_1 by assignee", models.TicketFilter{OrderBy: "assignee", Direction: "asc", Severities: []string{"sev_1"}},
			[]string{"newest sev1", "mine sev1"}},
	} {
		if got := f.listAll(f.support, c.filter); !slices.Equal(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}

	page, err := f.store.Tickets(f.ctx, f.support, models.TicketFilter{Assignee: models.TicketMine})
	if err != nil || len(page.Tickets) != 1 {
		t.Fatal(err)
	}
	if tk := page.Tickets[0]; tk.AccountEmail != "owner@example.com" || tk.AssigneeEmail != "help@example.com" {
		t.Errorf("staff row names account %q and assignee %q", tk.AccountEmail, tk.AssigneeEmail)
	}
	page, _ = f.store.Tickets(f.ctx, f.owner, models.TicketFilter{})
	for _, tk := range page.Tickets {
		if tk.AssigneeEmail != "" || tk.AccountEmail != "" {
			t.Fatalf("an owner's row names staff: %+v", tk)
		}
	}
	_, err = f.store.Tickets(f.ctx, f.owner, models.TicketFilter{Assignee: models.TicketUnassigned})
	expectCode(t, err, models.CodeInvalidParameters, "assignee")
	_, err = f.store.Tickets(f.ctx, f.owner, models.TicketFilter{OrderBy: "assignee"})
	expectCode(t, err, models.CodeInvalidParameters, "order_by")
	_, err = f.store.Tickets(f.ctx, f.support, models.TicketFilter{Assignee: "someone"})
	expectCode(t, err, models.CodeInvalidParameters, "assignee")
	// A token of one order does not continue another.
	first, _ := f.store.Tickets(f.ctx, f.support, models.TicketFilter{OrderBy: "severity", Limit: 1})
	_, err = f.store.Tickets(f.ctx, f.support, models.TicketFilter{OrderBy: "status", PageToken: *first.NextPageToken})
	expectCode(t, err, models.CodeInvalidParameters, "page_token")
}
