// Command benchtool prepares and measures cloudplane for scripts/bench/run.sh:
//
//	benchtool seed --database PATH --accounts 100 --filesystems 10 --keys FILE [--filesystem-quota N]
//	benchtool startup --binary PATH
//	benchtool pgdb create|drop --url URL
//	benchtool webhooks seed|run ... (webhooks.go)
//
// seed builds the benchmark's accounts through the same domain operations
// the API uses; startup times a fresh process from exec to a 200 on /healthz;
// pgdb creates a fresh PostgreSQL database on the server at URL and prints
// its URL, or drops one it created.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"cloudplane/handlers/testserver"
	"cloudplane/models"
	"cloudplane/models/database"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: benchtool seed|startup|pgdb|webhooks [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "seed":
		err = seed(os.Args[2:])
	case "startup":
		err = startup(os.Args[2:])
	case "pgdb":
		err = pgdb(os.Args[2:])
	case "webhooks":
		err = webhooksCmd(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchtool:", err)
		os.Exit(1)
	}
}

func seed(args []string) error {
	fs := flag.NewFlagSet("seed", flag.ContinueOnError)
	dsn := fs.String("database", "", "database to seed")
	accounts := fs.Int("accounts", 100, "accounts to create")
	perAccount := fs.Int("filesystems", 10, "filesystems per account")
	keysFile := fs.String("keys", "", "file to write one API key per line to")
	quota := fs.Int("filesystem-quota", 0, "filesystems each account may have (0: the default), enough for the write benchmark")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ctx := context.Background()
	db, err := database.Open(ctx, *dsn)
	if err != nil {
		return err
	}
	if err := db.Migrate(ctx); err != nil {
		return err
	}
	cfg := models.DefaultConfig()
	cfg.PasswordCost = 4 // the benchmark measures API keys, not sign-ins
	if *quota > 0 {
		cfg.DefaultFilesystemQuota = *quota
	}
	store := models.NewStore(db, models.WithConfig(cfg))
	defer store.Close()
	var keys []string
	for a := 1; a <= *accounts; a++ {
		u, err := store.CreateUser(ctx, models.OperatorActor, models.CreateUserInput{
			Email: fmt.Sprintf("bench%04d@example.com", a), Password: "benchmark password"})
		if err != nil {
			return err
		}
		actor := u.Actor()
		_, secret, err := store.CreateAPIKey(ctx, actor, models.CreateAPIKeyInput{Name: "bench"})
		if err != nil {
			return err
		}
		keys = append(keys, secret)
		for f := 1; f <= *perAccount; f++ {
			in := models.CreateFilesystemInput{Name: fmt.Sprintf("filesystem-%02d", f), Region: "us-east-1"}
			if _, err := store.CreateFilesystem(ctx, actor, in); err != nil {
				return err
			}
		}
	}
	return os.WriteFile(*keysFile, []byte(strings.Join(keys, "\n")+"\n"), 0o600)
}

// startup starts the binary on a new database and reports the time until
// /healthz first answers 200.
func startup(args []string) error {
	fs := flag.NewFlagSet("startup", flag.ContinueOnError)
	binary := fs.String("binary", "bin/cloudplane", "cloudplane binary")
	runs := fs.Int("runs", 5, "fresh starts to time")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var worst time.Duration
	for i := 0; i < *runs; i++ {
		d, err := timeStartup(*binary)
		if err != nil {
			return err
		}
		fmt.Printf("start %d: %v\n", i+1, d.Round(time.Millisecond))
		worst = max(worst, d)
	}
	fmt.Printf("startup to healthy, worst of %d: %v\n", *runs, worst.Round(time.Millisecond))
	return nil
}

// timeStartup starts the binary through the test harness's launcher on a
// new SQLite database and returns how long it took from exec to the first
// 200 on /healthz.
func timeStartup(binary string) (time.Duration, error) {
	dir, err := os.MkdirTemp("", "cloudplane-startup")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	begin := time.Now()
	s, err := testserver.Launch(testserver.Options{
		Binary:     binary,
		Database:   filepath.Join(dir, "new.db"),
		Timeout:    10 * time.Second,
		HealthPoll: 2 * time.Millisecond,
	})
	took := time.Since(begin)
	if s != nil {
		defer s.Close()
	}
	if err != nil {
		return 0, err
	}
	return took, nil
}
