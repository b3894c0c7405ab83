package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"cloudplane/models"
)

// membersCommand is the preamble of the members commands: dbCommand with
// --account, the email of an owner of the account they act on.
type membersCommand struct {
	dbCommand
	account *string
}

func newMembersCommand(name string) membersCommand {
	c := newDBCommand(name)
	return membersCommand{dbCommand: c, account: c.fs.String("account", "", "the account's ID, or the email of its owner when they own only this account")}
}

// withAccount runs fn with the store and the id of the account --account
// names.
func (c membersCommand) withAccount(ctx context.Context, fn func(store *models.Store, accountID string) error) error {
	return c.withStore(ctx, func(store *models.Store) error {
		accountID, err := store.AccountIDByOwnerEmail(ctx, *c.account)
		if err != nil {
			return err
		}
		return fn(store, accountID)
	})
}

// membersList prints the members of an account with their roles.
func membersList(ctx context.Context, args []string, stdout io.Writer) error {
	c := newMembersCommand("members list")
	if err := c.parse(args, "account"); err != nil {
		return err
	}
	return c.withAccount(ctx, func(store *models.Store, accountID string) error {
		members, err := store.Members(ctx, models.OperatorActor, accountID)
		if err != nil {
			return err
		}
		w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "EMAIL\tROLE\tSINCE")
		for _, m := range members {
			fmt.Fprintf(w, "%s\t%s\t%s\n", m.Email, m.Role, m.CreatedAt.UTC().Format("2006-01-02 15:04"))
		}
		return w.Flush()
	})
}

// membersSetRole changes a member's role; the last owner stays one.
func membersSetRole(ctx context.Context, args []string, stdout io.Writer) error {
	c := newMembersCommand("members set-role")
	email := c.fs.String("email", "", "email of the member")
	role := c.fs.String("role", "", "owner, member or viewer")
	if err := c.parse(args, "account", "email", "role"); err != nil {
		return err
	}
	return c.withAccount(ctx, func(store *models.Store, accountID string) error {
		m, err := store.SetMemberRole(ctx, models.OperatorActor, models.MemberInput{AccountID: accountID, Member: *email, Role: *role})
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s is now %s of the account of %s\n", m.Email, article(m.Role), *c.account)
		return nil
	})
}

// membersRemove takes a member out of an account, revoking their keys of
// it and ending their sessions on it; the last owner stays.
func membersRemove(ctx context.Context, args []string, stdout io.Writer) error {
	c := newMembersCommand("members remove")
	email := c.fs.String("email", "", "email of the member")
	if err := c.parse(args, "account", "email"); err != nil {
		return err
	}
	return c.withAccount(ctx, func(store *models.Store, accountID string) error {
		m, err := store.RemoveMember(ctx, models.OperatorActor, models.MemberInput{AccountID: accountID, Member: *email})
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s removed from the account of %s; their API keys of it are revoked\n", m.Email, *c.account)
		return nil
	})
}

// membersInvite invites an email to an account with a role, as its owner
// would from the Members page (the operator acting): the mail goes out
// through the outbox, sent by a running server, and the link is printed
// too, for when no mail is sent. The daily cap and the member check are
// the domain's.
func membersInvite(ctx context.Context, args []string, stdout io.Writer) error {
	c := newMembersCommand("members invite")
	email := c.fs.String("email", "", "email to invite")
	role := c.fs.String("role", "", "owner, member or viewer")
	baseURL := c.fs.String("base-url", "http://127.0.0.1:8080", "public URL of the dashboard, for the printed link")
	if err := c.parse(args, "account", "email", "role"); err != nil {
		return err
	}
	return c.withAccount(ctx, func(store *models.Store, accountID string) error {
		inv, err := store.CreateInvitation(ctx, models.OperatorActor, models.InviteInput{AccountID: accountID, Email: *email, Role: *role})
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s invited to the account of %s as %s; the mail is sent by the running server.\n",
			inv.Email, *c.account, inv.Role)
		fmt.Fprintf(stdout, "Link (works once, for 7 days): %s/invitations/%s\n", strings.TrimSuffix(*baseURL, "/"), inv.Token)
		return nil
	})
}

func article(role string) string {
	if role == models.RoleOwner {
		return "an owner"
	}
	return "a " + role
}
