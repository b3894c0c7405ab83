package models_test

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"cloudplane/models"
)

// listAll pages through a listing with a small page size and returns the
// subjects in order.
func (f *ticketFixture) listAll(actor models.Actor, filter models.TicketFilter) []string {
	f.t.Helper()
	var subjects []string
	filter.Limit = 2
	for pages := 0; ; pages++ {
		page, err := f.store.Tickets(f.ctx, actor, filter)
		if err != nil {
			f.t.Fatal(err)
		}
		for _, tk := range page.Tickets {
			subjects = append(subjects, tk.Subject)
		}
		if page.NextPageToken == nil {
			return subjects
		}
		if pages > 50 {
			f.t.Fatal("paging does not end")
		}
		filter.PageToken = *page.NextPageToken
	}
}

func TestTicketListingOrdersAndPages(t *testing.T) {
	f := newTicketFixture(t)
	for _, s := range []string{"a", "b", "c", "d", "e"} {
		f.incident(f.owner, s)
		f.clock.Advance(time.Second)
	}
	f.incident(f.other, "not mine")
	// Touch "b" last, so updated_at orders it last.
	page, _ := f.store.Tickets(f.ctx, f.owner, models.TicketFilter{Direction: "asc"})
	if _, err := f.store.UpdateTicket(f.ctx, f.owner, page.Tickets[1].ID, models.UpdateTicketInput{Comment: &models.TicketCommentInput{Body: "bump"}}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		filter models.TicketFilter
		want   []string
	}{
		{models.TicketFilter{}, []string{"e", "d", "c", "b", "a"}},
		{models.TicketFilter{Direction: "asc"}, []string{"a", "b", "c", "d", "e"}},
		{models.TicketFilter{OrderBy: "updated_at", Direction: "desc"}, []string{"b", "e", "d", "c", "a"}},
		{models.TicketFilter{OrderBy: "updated_at", Direction: "asc"}, []string{"a", "c", "d", "e", "b"}},
	}
	for _, tc := range cases {
		if got := f.listAll(f.owner, tc.filter); !slices.Equal(got, tc.want) {
			t.Errorf("%+v: %v, want %v", tc.filter, got, tc.want)
		}
	}
	if got := f.listAll(f.support, models.TicketFilter{}); len(got) != 6 {
		t.Errorf("support sees %v", got)
	}
	if got := f.listAll(f.support, models.TicketFilter{AccountID: f.other.AccountID}); !slices.Equal(got, []string{"not mine"}) {
		t.Errorf("support filtered by account sees %v", got)
	}
	if got := f.listAll(f.other, models.TicketFilter{AccountID: f.owner.AccountID}); !slices.Equal(got, []string{"not mine"}) {
		t.Errorf("an owner's account filter must not reach another account: %v", got)
	}
}

func TestTicketListingFilters(t *testing.T) {
	f := newTicketFixture(t)
	f.incident(f.owner, "new incident")
	solved := f.incident(f.owner, "solved")
	closed := f.ticketIn(models.TicketClosed)
	pending := f.ticketIn(models.TicketPending)
	_, _ = f.store.UpdateTicket(f.ctx, f.support, solved.ID, models.UpdateTicketInput{Status: ptr("solved"), Severity: ptr("sev_3")})
	_, _ = f.store.CreateTicket(f.ctx, f.owner, models.CreateTicketInput{Subject: "request", Description: "d", Type: models.TicketServiceRequest})
	cases := []struct {
		name   string
		filter models.TicketFilter
		want   []string
	}{
		{"api open covers new", models.TicketFilter{APIStatuses: []string{"open"}}, []string{"new incident", "request"}},
		{"api solved covers closed", models.TicketFilter{APIStatuses: []string{"solved"}}, []string{"solved", closed.Subject}},
		{"api confirm_solved matches nothing", models.TicketFilter{APIStatuses: []string{"confirm_solved"}}, nil},
		{"api several", models.TicketFilter{APIStatuses: []string{"pending", "solved"}}, []string{"solved", closed.Subject, pending.Subject}},
		{"full status", models.TicketFilter{Statuses: []string{"closed"}}, []string{closed.Subject}},
		{"type", models.TicketFilter{Types: []string{"service_request"}}, []string{"request"}},
		{"automated events: none", models.TicketFilter{Types: []string{"automated_event"}}, nil},
		{"severity", models.TicketFilter{Severities: []string{"sev_3"}}, []string{"solved"}},
		{"severity and status", models.TicketFilter{Severities: []string{"sev_2"}, APIStatuses: []string{"pending"}}, []string{pending.Subject}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := f.listAll(f.owner, tc.filter)
			slices.Sort(got)
			slices.Sort(tc.want)
			if !slices.Equal(got, tc.want) {
				t.Fatalf("%v, want %v", got, tc.want)
			}
		})
	}
}

func TestTicketListingRefusesBadInput(t *testing.T) {
	f := newTicketFixture(t)
	for i := 0; i < 3; i++ {
		f.incident(f.owner, "t")
	}
	page, err := f.store.Tickets(f.ctx, f.owner, models.TicketFilter{Limit: 1})
	if err != nil || page.NextPageToken == nil {
		t.Fatalf("%+v, %v", page, err)
	}
	token := *page.NextPageToken
	payload, sig, _ := strings.Cut(token, ".")
	flipped := []byte(payload)
	flipped[3] ^= 1
	cases := []struct {
		name   string
		filter models.TicketFilter
		field  string
	}{
		{"unknown api status", models.TicketFilter{APIStatuses: []string{"closed"}}, "status"},
		{"unknown status", models.TicketFilter{Statuses: []string{"done"}}, "status"},
		{"unknown type", models.TicketFilter{Types: []string{"bug"}}, "type"},
		{"unknown severity", models.TicketFilter{Severities: []string{"sev_0"}}, "severity"},
		{"unknown order", models.TicketFilter{OrderBy: "subject"}, "order_by"},
		{"unknown direction", models.TicketFilter{Direction: "up"}, "direction"},
		{"garbage token", models.TicketFilter{PageToken: "abc"}, "page_token"},
		{"tampered token", models.TicketFilter{PageToken: string(flipped) + "." + sig}, "page_token"},
		{"token of another order", models.TicketFilter{PageToken: token, Direction: "asc"}, "page_token"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := f.store.Tickets(f.ctx, f.owner, tc.filter)
			expectCode(t, err, models.CodeInvalidParameters, tc.field)
		})
	}
}

// The API's list holds one read connection for its queries on SQLite:
// many lists at once, more than the readers' pool holds, beside comments
// being written, all answer, and every ticket carries its description.
func TestTicketListsManyAtOnceBesideComments(t *testing.T) {
	f := newTicketFixture(t)
	var ids []string
	for i := range 12 {
		ids = append(ids, f.incident(f.owner, fmt.Sprintf("ticket %d", i)).ID)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 48 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%6 == 0 {
				_, err := f.store.UpdateTicket(f.ctx, f.owner, ids[i%len(ids)],
					models.UpdateTicketInput{Comment: &models.TicketCommentInput{Body: "more"}})
				errs <- err
				return
			}
			page, err := f.store.TicketsWithComments(f.ctx, f.owner, models.TicketFilter{})
			if err != nil {
				errs <- err
				return
			}
			if len(page.Tickets) != len(ids) {
				err = fmt.Errorf("listed %d tickets", len(page.Tickets))
			}
			for _, tk := range page.Tickets {
				if err == nil && (len(tk.Comments) == 0 || tk.Comments[0].Body != "It broke.") {
					err = fmt.Errorf("ticket %s without its description: %+v", tk.ID, tk.Comments)
				}
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	// The counts the trigger kept while comments were written at once
	// agree with the comments.
	page, err := f.store.TicketsWithComments(f.ctx, f.owner, models.TicketFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tk := range page.Tickets {
		bytes := int64(0)
		for _, c := range tk.Comments {
			bytes += int64(len(c.Body))
		}
		if tk.CommentRows != len(tk.Comments) || tk.CommentBytes != bytes || tk.Summary().CommentCount != len(tk.Comments)-1 {
			t.Fatalf("ticket %s: counted %d comments of %d bytes, holds %d of %d",
				tk.ID, tk.CommentRows, tk.CommentBytes, len(tk.Comments), bytes)
		}
	}
}
