package models_test

import (
	"testing"

	"cloudplane/models"
)

func TestAccountIDByIDOrOwnerEmail(t *testing.T) {
	f := newTicketFixture(t)
	cases := []struct {
		name  string
		actor models.Actor
		ref   string
		want  string
		code  models.Code
	}{
		{"by id", f.support, f.other.AccountID, f.other.AccountID, ""},
		{"by owner email, any case", f.support, " Other@Example.com ", f.other.AccountID, ""},
		{"operator", models.OperatorActor, "owner@example.com", f.owner.AccountID, ""},
		{"unknown email", f.support, "nobody@example.com", "", models.CodeInvalidParameters},
		{"unknown id", f.support, models.NewID(), "", models.CodeInvalidParameters},
		{"support staff have no account", f.support, "help@example.com", "", models.CodeInvalidParameters},
		{"neither", f.support, "x", "", models.CodeInvalidParameters},
		{"owners look up no other account", f.owner, f.other.AccountID, "", models.CodeForbidden},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := f.store.AccountID(f.ctx, c.actor, c.ref)
			if c.code != "" {
				field := ""
				if c.code == models.CodeInvalidParameters {
					field = "account"
				}
				expectCode(t, err, c.code, field)
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("got %q, %v; want %q", got, err, c.want)
			}
		})
	}
}
