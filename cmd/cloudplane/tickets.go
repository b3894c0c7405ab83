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
	fs := newFlags("tickets set-status")
	dsn := databaseFlag(fs)
	id := fs.String("id", "", "the ticket's id")
	status := fs.String("status", "", "open, pending, on_hold, solved or closed")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := required(fs, "id", "status"); err != nil {
		return err
	}
	store, err := openStore(ctx, *dsn)
	if err != nil {
		return err
	}
	defer store.Close()
	t, err := store.UpdateTicket(ctx, models.OperatorActor, *id, models.UpdateTicketInput{Status: status})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "ticket %s is %s\n", t.ID, t.Status)
	return nil
}
