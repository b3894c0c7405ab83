package models_test

import (
	"slices"
	"strings"
	"testing"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// Search finds every object by the start of its id; tickets by the words
// of their subject in any order and by their number ("#" and the id's
// last eight digits); support finds accounts by any part of an email. An
// id's start finds only the actor's objects.
func TestSearchByIDWordsNumberAndEmail(t *testing.T) {
	f := newTicketFixture(t)
	u, err := f.store.User(f.ctx, f.owner.UserID)
	if err != nil {
		t.Fatal(err)
	}
	fsID := modelstest.InsertFilesystem(t, f.store, u, "scratch", "us-east-1")
	key, _, err := f.store.CreateSSHKey(f.ctx, f.owner, models.CreateSSHKeyInput{Name: "laptop"})
	if err != nil {
		t.Fatal(err)
	}
	apiKey, _, err := f.store.CreateAPIKey(f.ctx, f.owner, models.CreateAPIKeyInput{Name: "deploy bot"})
	if err != nil {
		t.Fatal(err)
	}
	ticket := f.incident(f.owner, "Training job stalls on node 7")
	others := f.incident(f.other, "Training job stalls too")
	hook := f.webhook(f.owner, "https://hooks.example.com/in")

	found := func(actor models.Actor, q, kind, id string) bool {
		t.Helper()
		r, err := f.store.Search(f.ctx, actor, q)
		if err != nil {
			t.Fatalf("search %q: %v", q, err)
		}
		return slices.ContainsFunc(r.Results, func(x models.SearchResult) bool { return x.Kind == kind && x.ID == id })
	}
	// The start of an id (the first 20 of 32 digits), each kind.
	for _, c := range []struct{ kind, id string }{
		{models.SearchFilesystem, fsID}, {models.SearchSSHKey, key.ID}, {models.SearchAPIKey, apiKey.ID},
		{models.SearchTicket, ticket.ID}, {models.SearchWebhook, hook.ID},
	} {
		if !found(f.owner, c.id[:20], c.kind, c.id) {
			t.Errorf("the start of the %s's id %s finds nothing", c.kind, c.id[:20])
		}
		if !found(f.owner, strings.ToUpper(c.id[:20]), c.kind, c.id) {
			t.Errorf("the start of the %s's id in capitals finds nothing", c.kind)
		}
	}
	if found(f.other, ticket.ID[:20], models.SearchTicket, ticket.ID) {
		t.Errorf("another account finds the owner's ticket by its id")
	}
	// Keys by name.
	if !found(f.owner, "deploy", models.SearchAPIKey, apiKey.ID) || !found(f.owner, "lapt", models.SearchSSHKey, key.ID) {
		t.Errorf("keys are not found by name")
	}
	// Ticket subjects by their words, anywhere and in any order.
	for _, q := range []string{"stalls", "node 7", "NODE stalls", "job"} {
		if !found(f.owner, q, models.SearchTicket, ticket.ID) {
			t.Errorf("search %q does not find the ticket %q", q, ticket.Subject)
		}
	}
	if found(f.owner, "stalls", models.SearchTicket, others.ID) {
		t.Errorf("a word finds another account's ticket")
	}
	if found(f.owner, "stalls node 8", models.SearchTicket, ticket.ID) {
		t.Errorf("a word not in the subject still finds it")
	}
	// A ticket's number, as pages show it, or its start.
	number := ticket.ID[24:]
	for _, q := range []string{"#" + number, number, "#" + number[:5], strings.ToUpper(number)} {
		if !found(f.owner, q, models.SearchTicket, ticket.ID) {
			t.Errorf("search %q does not find ticket #%s", q, number)
		}
	}
	if found(f.other, "#"+number, models.SearchTicket, ticket.ID) {
		t.Errorf("another account finds the ticket by number")
	}
	// Support: both accounts' tickets by words and number, accounts by a
	// part of an email, or the start of the account's id.
	if !found(f.support, "stalls", models.SearchTicket, ticket.ID) || !found(f.support, "stalls", models.SearchTicket, others.ID) ||
		!found(f.support, "#"+number, models.SearchTicket, ticket.ID) {
		t.Errorf("support does not find tickets across accounts by words and number")
	}
	for _, q := range []string{"ther@exam", "@example.com", "OTHER"} {
		if !found(f.support, q, models.SearchAccount, f.other.AccountID) {
			t.Errorf("support's search %q does not find other@example.com's account", q)
		}
	}
	if !found(f.support, f.other.AccountID[:16], models.SearchAccount, f.other.AccountID) {
		t.Errorf("support does not find an account by the start of its id")
	}
	if got := search(t, f, f.owner, "ther@exam"); len(got) != 0 {
		t.Errorf("an owner finds %q by a part of an email", got)
	}
	// Three digits are too few to be an id's start: they match a name only.
	if got := search(t, f, f.owner, fsID[:3]); len(got) != 0 {
		t.Errorf("three digits found %q", got)
	}
}
