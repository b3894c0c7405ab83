package main

import (
	"context"
	"fmt"
	"io"

	"cloudplane/models"
)

// ticketsSetStatus moves a ticket through the status machine as support
// would. A move the machine refuses is a one-line error and exit status 2.
func ticketsSetStatus(ctx context.Context, args []string, stdout io.Writer) error {
	c := newDBCommand("tickets set-status")
	id := c.fs.String("id", "", "the ticket's id")
	status := c.fs.String("status", "", "open, pending, on_hold, solved or closed")
	if err := c.parse(args, "id", "status"); err != nil {
		return err
	}
	return c.withStore(ctx, func(store *models.Store) error {
		t, err := store.UpdateTicket(ctx, models.OperatorActor, *id, models.UpdateTicketInput{Status: status})
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "ticket %s is %s\n", t.ID, t.Status)
		return nil
	})
}
