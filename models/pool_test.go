package models_test

import (
	"bytes"
	"context"
	"fmt"
	"runtime/pprof"
	"sync"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// Many clients at once, on a pool far smaller than their number, must all
// finish: no operation may hold a connection while it waits for something
// (a second connection, a statement another goroutine prepares) that only
// another connection holder can release. With the pool at one connection,
// any operation that needs two at once hangs, so the test also proves that
// no write reads through a second connection inside its transaction.
// It once hung for good on PostgreSQL behind GORM's prepared-statement
// lock, whose holder waited for a connection to prepare on.
func TestManyClientsOnASmallPoolAllFinish(t *testing.T) {
	for _, conns := range []int{1, 3} {
		t.Run(fmt.Sprintf("%d connections", conns), func(t *testing.T) {
			cfg := models.DefaultConfig()
			cfg.PasswordCost = 4
			cfg.DefaultFilesystemQuota = 1000 // every client creates some
			store := modelstest.Open(t, models.WithConfig(cfg))
			sqlDB, err := store.DB().DB()
			if err != nil {
				t.Fatal(err)
			}
			sqlDB.SetMaxOpenConns(conns)
			runMixedClients(t, store, 48, 6)
		})
	}
}

// runMixedClients runs clients goroutines over a few accounts, each doing
// rounds of the dashboard's and the API's mix of reads and writes, and
// fails unless all of them finish, without error, within a bound that is
// generous for a loaded machine but far from forever.
func runMixedClients(t *testing.T, store *models.Store, clients, rounds int) {
	t.Helper()
	actors := make([]models.Actor, 6)
	for i := range actors {
		u, _ := modelstest.Owner(t, store, fmt.Sprintf("pool%d@example.com", i))
		actors[i] = u.Actor()
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	errs := make(chan error, clients*rounds*8)
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			actor := actors[c%len(actors)]
			for r := range rounds {
				for _, err := range mixedRound(ctx, store, actor, fmt.Sprintf("c%d-r%d", c, r)) {
					if err != nil {
						errs <- err
					}
				}
			}
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(90 * time.Second):
		var dump bytes.Buffer
		_ = pprof.Lookup("goroutine").WriteTo(&dump, 1)
		t.Fatalf("%d clients on %s did not finish within 90 s: stuck.\n%.8000s", clients, modelstest.Backend(), dump.String())
	}
	close(errs)
	var failed []error
	for err := range errs {
		failed = append(failed, err)
	}
	if len(failed) > 0 {
		t.Fatalf("%d operations failed on %s, first: %v", len(failed), modelstest.Backend(), failed[0])
	}
}

// mixedRound is one client's round: the operations that hung PostgreSQL
// under load, whose SQL shapes vary (IN lists grow with the tickets).
func mixedRound(ctx context.Context, store *models.Store, actor models.Actor, name string) []error {
	_, err1 := store.CreateFilesystem(ctx, actor, models.CreateFilesystemInput{Name: "fs-" + name, Region: "us-east-1"})
	_, err2 := store.Filesystems(ctx, actor)
	_, err3 := store.CreateTicket(ctx, actor, models.CreateTicketInput{Subject: "s " + name, Description: "d", Type: models.TicketServiceRequest})
	_, err4 := store.Tickets(ctx, actor, models.TicketFilter{})
	_, _, err5 := store.CreateSSHKey(ctx, actor, models.CreateSSHKeyInput{Name: "key-" + name})
	_, err6 := store.ReplaceInboundFirewallRules(ctx, actor, models.ReplaceInboundRulesInput{
		Rules: []models.FirewallRule{models.DefaultInboundRule()}})
	_, err7 := store.Instances(ctx, actor)
	_, err8 := store.AuditEvents(ctx, actor, models.AuditEventsInput{})
	return []error{err1, err2, err3, err4, err5, err6, err7, err8}
}
