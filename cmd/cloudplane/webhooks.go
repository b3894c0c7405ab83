package main

import (
	"context"
	"fmt"
	"io"

	"cloudplane/models"
)

// webhooksSet points an owner's webhook at a URL and enables it. The
// token is the one given, or a new one; it is printed as the last line.
func webhooksSet(ctx context.Context, args []string, stdout io.Writer) error {
	c := newDBCommand("webhooks set")
	email := c.fs.String("email", "", "email of the account's owner")
	url := c.fs.String("url", "", "https URL that receives the events")
	token := c.fs.String("token", "", "bearer token sent with every delivery; generated when omitted")
	allowPrivate := c.fs.Bool("webhook-allow-private", false, "accept private and loopback hosts and plain http (development)")
	if err := c.parse(args, "email", "url"); err != nil {
		return err
	}
	cfg := models.DefaultConfig()
	cfg.WebhookAllowPrivate = *allowPrivate
	return c.withStore(ctx, func(store *models.Store) error {
		actor, err := ownerActor(ctx, store, *email)
		if err != nil {
			return err
		}
		enabled := true
		e, newToken, err := store.SetWebhook(ctx, actor, models.SetWebhookInput{URL: *url, Token: *token,
			RotateToken: *token == "", Enabled: &enabled})
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "webhook of %s delivers to %s\n", actor.Email, e.URL)
		fmt.Fprintf(stdout, "signing secret (verifies webhook-signature): %s\n", e.Secret)
		fmt.Fprintf(stdout, "bearer token; it is shown once:\n%s\n", newToken)
		return nil
	}, models.WithConfig(cfg))
}
