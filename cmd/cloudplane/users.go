package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"cloudplane/models"
)

// usersResetPassword prints a one-time link at which the user chooses a
// new password, or with --password sets it at once; either way the user's
// sessions end when the password changes.
func usersResetPassword(ctx context.Context, args []string, stdout io.Writer) error {
	c := newDBCommand("users reset-password")
	email := c.fs.String("email", "", "email of the user")
	password := c.fs.String("password", "", "set this password now instead of printing a link")
	baseURL := c.fs.String("base-url", "http://127.0.0.1:8080", "public URL of the dashboard, for the printed link")
	if err := c.parse(args, "email"); err != nil {
		return err
	}
	return c.withStore(ctx, func(store *models.Store) error {
		if *password != "" {
			if err := store.SetPassword(ctx, models.OperatorActor, *email, *password); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "password of %s set; their sessions are signed out\n", *email)
			return nil
		}
		token, err := store.StartPasswordReset(ctx, models.OperatorActor, *email)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "reset link for %s (works once, for %s):\n%s/reset-password/%s\n",
			*email, models.PasswordResetTTL, strings.TrimSuffix(*baseURL, "/"), token)
		return nil
	})
}

// usersReset2FA removes a user's second factor, recovery codes and
// passkeys, for someone who lost their authenticator or passkeys, ends
// their sessions and mails them; audited. Their next sign-in takes the password alone, unless a second
// factor is required of them, when it leads them to enrol a new one.
func usersReset2FA(ctx context.Context, args []string, stdout io.Writer) error {
	c := newDBCommand("users reset-2fa")
	email := c.fs.String("email", "", "email of the user")
	if err := c.parse(args, "email"); err != nil {
		return err
	}
	return c.withStore(ctx, func(store *models.Store) error {
		if err := store.ResetSecondFactor(ctx, models.OperatorActor, *email); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "second factor, recovery codes and passkeys of %s removed; their sessions ended and they were mailed\n", *email)
		return nil
	})
}

// usersList prints every user, one a line.
func usersList(ctx context.Context, args []string, stdout io.Writer) error {
	c := newDBCommand("users list")
	if err := c.parse(args); err != nil {
		return err
	}
	return c.withStore(ctx, func(store *models.Store) error {
		users, err := store.Users(ctx)
		if err != nil {
			return err
		}
		w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "EMAIL\tROLE\tSTATUS\tACCOUNT\tCREATED")
		for _, u := range users {
			account := "-"
			if u.AccountID != nil {
				account = *u.AccountID
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", u.Email, u.Role, u.Status, account, u.CreatedAt.UTC().Format("2006-01-02 15:04"))
		}
		return w.Flush()
	})
}
