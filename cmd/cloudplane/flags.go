package main

import (
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"

	"cloudplane/models/database"
)

// newFlags returns a flag set for a command. Errors are returned, not
// printed with the whole usage, so a wrong flag costs one line on stderr.
func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("cloudplane "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parseFlags parses args, then fills every flag not given on the command
// line from CLOUDPLANE_<FLAG> (dashes become underscores).
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			fs.SetOutput(os.Stdout)
			fs.PrintDefaults()
		}
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		if given[f.Name] || err != nil {
			return
		}
		env := "CLOUDPLANE_" + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		if v, ok := os.LookupEnv(env); ok {
			if serr := fs.Set(f.Name, v); serr != nil {
				err = fmt.Errorf("%s: %w", env, serr)
			}
		}
	})
	return err
}

// required fails unless every named string flag has a value.
func required(fs *flag.FlagSet, names ...string) error {
	for _, n := range names {
		if fs.Lookup(n).Value.String() == "" {
			return fmt.Errorf("--%s is required", n)
		}
	}
	return nil
}

// databaseFlag registers --database on fs.
func databaseFlag(fs *flag.FlagSet) *string {
	return fs.String("database", database.DefaultPath, "SQLite file path, or a postgres:// URL")
}

func parseURL(s string) (*url.URL, error) { return url.Parse(s) }
