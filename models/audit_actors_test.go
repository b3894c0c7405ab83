package models_test

import (
	"context"
	"testing"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// Events record the actor's role; support staff reading an account's log
// learn which agent acted, owners may not.
func TestAuditActorRolesAndSupportEmails(t *testing.T) {
	ctx := context.Background()
	store := modelstest.Open(t)
	owner, _ := modelstest.Owner(t, store, "ada@example.com")
	help, err := store.CreateUser(ctx, models.OperatorActor, models.CreateUserInput{Email: "help@example.com",
		Password: password, Role: models.RoleSupport})
	if err != nil {
		t.Fatal(err)
	}
	tk, err := store.CreateTicket(ctx, owner.Actor(), models.CreateTicketInput{Subject: "s", Description: "d",
		Type: models.TicketServiceRequest})
	if err != nil {
		t.Fatal(err)
	}
	pending := "pending"
	if _, err := store.UpdateTicket(ctx, help.Actor(), tk.ID, models.UpdateTicketInput{Status: &pending}); err != nil {
		t.Fatal(err)
	}
	events, err := store.LatestAuditEvents(ctx, owner.Actor(), 10)
	if err != nil {
		t.Fatal(err)
	}
	roles := map[string]string{}
	for _, ev := range events {
		if ev.ActorRole == nil {
			t.Fatalf("event %s %s has no actor role", ev.ResourceName, ev.Action)
		}
		roles[ev.ResourceName+" "+ev.Action] = *ev.ActorRole
	}
	want := map[string]string{"user created": "operator", "ticket created": "owner", "ticket updated": "support"}
	for k, v := range want {
		if roles[k] != v {
			t.Fatalf("roles %v, want %v", roles, want)
		}
	}
	emails, err := store.SupportActorEmails(ctx, help.Actor(), events)
	if err != nil || len(emails) != 1 || emails[help.ID] != "help@example.com" {
		t.Fatalf("support sees %v, %v", emails, err)
	}
	if _, err := store.SupportActorEmails(ctx, owner.Actor(), events); err == nil {
		t.Fatal("an owner learned who in support acted")
	}
	// The account's own log names its members to anyone; support staff
	// also learn the agents, in the same map.
	members, err := store.MemberActorEmails(ctx, owner.Actor(), events)
	if err != nil || len(members) != 1 || members[owner.ID] != "ada@example.com" {
		t.Fatalf("the owner sees %v, %v", members, err)
	}
	both, err := store.MemberActorEmails(ctx, help.Actor(), events)
	if err != nil || len(both) != 2 || both[owner.ID] != "ada@example.com" || both[help.ID] != "help@example.com" {
		t.Fatalf("support sees %v, %v", both, err)
	}
}
