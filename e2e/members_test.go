package e2e

import (
	"context"
	"regexp"
	"testing"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// A person who belongs to two accounts switches between them in the
// header; every page then acts on the chosen one, with their role there:
// as a member of another's account, they see its members but cannot add
// a webhook, whose form their page does not show.
func TestAccountSwitcher(t *testing.T) {
	s := need(t)
	ada, bob := s.newOwner(t), s.newOwner(t)
	store := modelstest.OpenAt(t, s.db) // as the operator's tools would, beside the server
	owner, err := store.MemberActorByEmail(context.Background(), ada.email, ada.email)
	if err != nil {
		t.Fatal(err)
	}
	modelstest.Member(t, store, owner, bob.email, models.RoleMember)

	b := s.newTab(t)
	b.signIn(bob)
	b.WaitText("#site-header .user-role", "^Account owner$")
	b.Shot("own account")
	b.Choose("#site-header", "^Account$", "^"+regexp.QuoteMeta(ada.email))
	b.Press("#site-header", "^Switch$")
	b.WaitText("#site-header .user-role", "^Member$")
	b.Ready()
	b.Shot("switched to another's account")

	b.NavTo("^Members$")
	b.WaitText("main table", ada.email)
	b.RowWith(bob.email)
	if b.Has("main", "button", "^Change") {
		b.Fail("a member is offered to change roles")
	}
	b.Shot("members as a member")

	b.NavTo("^Webhooks$")
	var shown bool
	if err := b.EvalJS(`(f => !!f && f.offsetParent !== null)(document.querySelector('main form[action="/webhook"]'))`, &shown); err != nil || shown {
		b.Fail("the add-webhook form is shown to a member (%v)", err)
	}

	// Back to their own account, where they own everything again.
	b.Choose("#site-header", "^Account$", "^"+regexp.QuoteMeta(bob.email))
	b.Press("#site-header", "^Switch$")
	b.WaitText("#site-header .user-role", "^Account owner$")
}
