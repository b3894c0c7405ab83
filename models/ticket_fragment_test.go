package models_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// fragmentFilters are the owner's listings the tests compare: orders,
// directions, a status filter, and small pages walked by page token.
var fragmentFilters = []models.TicketFilter{
	{}, {Direction: "asc"}, {OrderBy: "updated_at"}, {APIStatuses: []string{"open"}},
	{Severities: []string{"sev_1"}}, {Limit: 4}, {OrderBy: "updated_at", Direction: "asc", Limit: 3},
}

// expectWholePages reads every page of each of fragmentFilters from store,
// following the page tokens, and fails unless each equals, byte for byte,
// the page as encoded whole from TicketsWithComments. It returns how many
// pages it read.
func expectWholePages(t *testing.T, store *models.Store, owner models.Actor, step string) int {
	t.Helper()
	ctx := t.Context()
	pages := 0
	for _, filter := range fragmentFilters {
		for {
			got, err := store.TicketsWithCommentsEncoded(ctx, owner, filter, apiLikeEncoding)
			if err != nil {
				t.Fatalf("%s, %+v: %v", step, filter, err)
			}
			page, err := store.TicketsWithComments(ctx, owner, filter)
			if err != nil {
				t.Fatalf("%s, %+v: %v", step, filter, err)
			}
			pages++
			if want := encodeWhole(page); !bytes.Equal(got, want) {
				t.Fatalf("%s, %+v: encoded from fragments\n%.2000s\nwhole\n%.2000s", step, filter, got, want)
			}
			if page.NextPageToken == nil {
				break
			}
			filter.PageToken = *page.NextPageToken
		}
	}
	return pages
}

// Across a random sequence of the changes a ticket sees (created, commented
// on by its owner and by support, moved by support, solved, its severity
// changed, noted), on a clock that often stands still, every page encoded
// from fragments equals the page encoded whole. Some tickets' text is
// large and escapes to six bytes a character, so that pages are cut both
// by stored text and by the JSON's size.
func TestTicketFragmentPagesEqualWholePages(t *testing.T) {
	f := newTicketFixture(t)
	rng := rand.New(rand.NewPCG(24, 1))
	var ids []string
	create := func(i int) {
		description := "It broke."
		switch i % 7 {
		case 3:
			description = strings.Repeat("<", models.MaxTicketText) // 6 bytes a character in JSON
		case 5:
			description = strings.Repeat("é", models.MaxTicketText) // 2 bytes a character stored
		}
		ticket, err := f.store.CreateTicket(f.ctx, f.owner, models.CreateTicketInput{Subject: fmt.Sprintf("ticket %d & <%d>", i, i),
			Description: description, Type: models.TicketIncident, Severity: ptr(models.TicketSeverities[i%3])})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, ticket.ID)
	}
	for i := range 6 {
		create(i)
	}
	f.incident(f.other, "not mine")
	applied, pages := 0, 0
	for step := range 40 {
		if rng.IntN(2) == 0 {
			f.clock.Advance(1e9)
		}
		id := ids[rng.IntN(len(ids))]
		var err error
		var what string
		switch op := rng.IntN(7); op {
		case 0:
			what = "create"
			create(len(ids))
		case 1:
			what = "owner comments"
			_, err = f.store.UpdateTicket(f.ctx, f.owner, id, models.UpdateTicketInput{
				Comment: &models.TicketCommentInput{Body: fmt.Sprintf("owner %d \u2028 <b>", step)}})
		case 2:
			what = "support replies"
			_, err = f.store.ReplyToTicket(f.ctx, f.support, id, models.TicketReplyInput{Kind: models.ReplyPublic,
				Body: fmt.Sprintf("support %d", step), Status: models.ReplyStatuses[rng.IntN(len(models.ReplyStatuses))]})
		case 3:
			what = "support moves"
			_, err = f.store.UpdateTicket(f.ctx, f.support, id, models.UpdateTicketInput{
				Status: ptr(models.TicketStatuses[1+rng.IntN(len(models.TicketStatuses)-1)])})
		case 4:
			what = "owner solves"
			_, err = f.store.UpdateTicket(f.ctx, f.owner, id, models.UpdateTicketInput{Status: ptr(models.TicketSolved)})
		case 5:
			what = "severity"
			_, err = f.store.UpdateTicket(f.ctx, f.owner, id, models.UpdateTicketInput{
				Severity: ptr(models.TicketSeverities[rng.IntN(3)])})
		case 6:
			what = "support notes"
			_, err = f.store.ReplyToTicket(f.ctx, f.support, id, models.TicketReplyInput{Kind: models.ReplyNote,
				Body: fmt.Sprintf("note %d", step)})
		}
		if err == nil {
			applied++
		} else if _, coded := models.AsError(err); !coded { // a move the status machine refuses is fine
			t.Fatalf("step %d, %s: %v", step, what, err)
		}
		pages += expectWholePages(t, f.store, f.owner, fmt.Sprintf("step %d (%s)", step, what))
	}
	if applied < 20 {
		t.Fatalf("only %d of 40 changes applied", applied)
	}
	t.Logf("%d changes applied, %d pages compared", applied, pages)
}

// A change through another store on the same database (another replica)
// shows in this store's next page, even on a clock that stands still, so
// that the ticket's updated_at does not change.
func TestTicketFragmentsSeeOtherStoresChanges(t *testing.T) {
	_, here, there := twoReplicas(t)
	user, _ := modelstest.Owner(t, here, "owner@example.com")
	owner := user.Actor()
	support, err := here.CreateUser(t.Context(), models.OperatorActor,
		models.CreateUserInput{Email: "help@example.com", Password: "support password", Role: models.RoleSupport})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i := range 3 {
		ticket, err := here.CreateTicket(t.Context(), owner, models.CreateTicketInput{Subject: fmt.Sprintf("ticket %d", i),
			Description: "It broke.", Type: models.TicketServiceRequest})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, ticket.ID)
	}
	changes := []func() error{
		func() error {
			_, err := there.UpdateTicket(t.Context(), owner, ids[0], models.UpdateTicketInput{
				Comment: &models.TicketCommentInput{Body: "from there"}})
			return err
		},
		func() error {
			_, err := there.UpdateTicket(t.Context(), support.Actor(), ids[1], models.UpdateTicketInput{Status: ptr(models.TicketOnHold)})
			return err
		},
		func() error {
			_, err := there.UpdateTicket(t.Context(), support.Actor(), ids[1], models.UpdateTicketInput{Status: ptr(models.TicketOpen)})
			return err
		},
		func() error {
			_, err := there.UpdateTicket(t.Context(), owner, ids[2], models.UpdateTicketInput{Status: ptr(models.TicketSolved)})
			return err
		},
	}
	expectWholePages(t, here, owner, "before")
	for i, change := range changes {
		if err := change(); err != nil {
			t.Fatal(err)
		}
		expectWholePages(t, here, owner, fmt.Sprintf("change %d", i))
	}
}

// Owners commenting and support moving tickets, all at once, with every
// writer reading the page as soon as its write returned: the page always
// holds the writer's change, never an encoding of the ticket from before.
func TestTicketFragmentsNeverStaleUnderConcurrentWrites(t *testing.T) {
	f := newTicketFixture(t)
	var ids []string
	for i := range 6 {
		ids = append(ids, f.incident(f.owner, fmt.Sprintf("ticket %d", i)).ID)
	}
	expectWholePages(t, f.store, f.owner, "before")
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for client := range 12 {
		wg.Go(func() {
			id := ids[client%len(ids)]
			for round := range 5 {
				var err error
				var want string
				if client%4 == 3 { // support, moving between two statuses that the API tells apart
					status := []string{models.TicketPending, models.TicketOnHold}[round%2]
					_, err = f.store.UpdateTicket(f.ctx, f.support, id, models.UpdateTicketInput{Status: &status})
					want = fmt.Sprintf(`"ID":%q`, id) // checked below against the page's status
					if err == nil {
						err = expectStatusShown(f, id, status)
					}
				} else {
					want = fmt.Sprintf(`"Body":"client %d round %d"`, client, round)
					_, err = f.store.UpdateTicket(f.ctx, f.owner, id, models.UpdateTicketInput{
						Comment: &models.TicketCommentInput{Body: fmt.Sprintf("client %d round %d", client, round)}})
				}
				if err != nil {
					errs <- err
					return
				}
				page, err := f.store.TicketsWithCommentsEncoded(f.ctx, f.owner, models.TicketFilter{}, apiLikeEncoding)
				if err != nil {
					errs <- err
					return
				}
				if !bytes.Contains(page, []byte(want)) {
					errs <- fmt.Errorf("after client %d's write %d the page lacks %s", client, round, want)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	expectWholePages(t, f.store, f.owner, "after")
}

// expectStatusShown fails unless the owner's page shows ticket id in
// status. Only one client moves each ticket, so nothing else moves it
// between the write and the read.
func expectStatusShown(f *ticketFixture, id, status string) error {
	page, err := f.store.TicketsWithCommentsEncoded(f.ctx, f.owner, models.TicketFilter{}, apiLikeEncoding)
	if err != nil {
		return err
	}
	at := bytes.Index(page, []byte(fmt.Sprintf(`"ID":%q`, id)))
	if at < 0 {
		return fmt.Errorf("ticket %s is not on the page", id)
	}
	rest := page[at:]
	if end := bytes.Index(rest, []byte(`"Comments"`)); end < 0 || !bytes.Contains(rest[:end], []byte(fmt.Sprintf(`"Status":%q`, status))) {
		return fmt.Errorf("ticket %s does not show status %s: %.300s", id, status, rest)
	}
	return nil
}
