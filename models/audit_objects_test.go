package models_test

import (
	"context"
	"testing"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// AuditObjects finds the objects events name as they are now, only while
// they exist and only those the reader may open: none of another
// account's, no revoked key, and for support staff tickets alone.
func TestAuditObjects(t *testing.T) {
	ctx := context.Background()
	store := modelstest.Open(t)
	ada, _ := modelstest.Owner(t, store, "ada@example.com")
	bob, _ := modelstest.Owner(t, store, "bob@example.com")
	help, err := store.CreateUser(ctx, models.OperatorActor, models.CreateUserInput{Email: "help@example.com",
		Password: password, Role: models.RoleSupport})
	if err != nil {
		t.Fatal(err)
	}
	tk, err := store.CreateTicket(ctx, ada.Actor(), models.CreateTicketInput{Subject: "Disk full", Description: "d",
		Type: models.TicketServiceRequest})
	if err != nil {
		t.Fatal(err)
	}
	key, _, err := store.CreateSSHKey(ctx, ada.Actor(), models.CreateSSHKeyInput{Name: "laptop", PublicKey: ptr(edKey)})
	if err != nil {
		t.Fatal(err)
	}
	revoked, _, err := store.CreateAPIKey(ctx, ada.Actor(), models.CreateAPIKeyInput{Name: "old"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.RevokeAPIKey(ctx, ada.Actor(), revoked.ID); err != nil {
		t.Fatal(err)
	}
	bobs, _, err := store.CreateSSHKey(ctx, bob.Actor(), models.CreateSSHKeyInput{Name: "bobs", PublicKey: ptr(edKey)})
	if err != nil {
		t.Fatal(err)
	}
	lrn := func(kind, id string) string { return "lrn:cloud:" + kind + ":" + id }
	events := []models.AuditEvent{
		{ResourceLRNs: []string{lrn("ticket", tk.ID)}}, {ResourceLRNs: []string{lrn("ssh_key", key.ID)}},
		{ResourceLRNs: []string{lrn("api_key", revoked.ID)}}, {ResourceLRNs: []string{lrn("ssh_key", bobs.ID)}},
		{ResourceLRNs: []string{lrn("user", ada.ID)}}, {ResourceLRNs: []string{lrn("user", bob.ID)}},
	}
	got, err := store.AuditObjects(ctx, ada.Actor(), events)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{lrn("ticket", tk.ID): "Disk full", lrn("ssh_key", key.ID): "laptop",
		lrn("user", ada.ID): "ada@example.com"}
	if len(got) != len(want) {
		t.Fatalf("ada reads %v, want %v", got, want)
	}
	for l, name := range want {
		if got[l].Name != name {
			t.Fatalf("ada reads %v, want %v", got, want)
		}
	}
	staff, err := store.AuditObjects(ctx, help.Actor(), events)
	if err != nil || len(staff) != 1 || staff[lrn("ticket", tk.ID)].Name != "Disk full" {
		t.Fatalf("support reads %v, %v; want the ticket alone", staff, err)
	}
}
