// Command cloudplane runs the cloudplane control plane and its operator
// commands. Every flag has a CLOUDPLANE_<FLAG> environment equivalent.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"cloudplane/models"
)

const usage = `usage: cloudplane <command> [flags]

commands:
  serve            run the server (the default when no command is given)
  migrate          apply database migrations; --status lists applied and pending ones
  backup           write a consistent, checked copy of a live SQLite database
  copy             copy a SQLite installation into a fresh PostgreSQL database
  users create     create a user (an owner gets an account of their own)
  users list       list every user
  users reset-password  print a one-time link to choose a new password, or set one
  users reset-2fa  remove a user's second factor, recovery codes and passkeys
  apikeys create   create an API key; prints the secret as the last line
  apikeys revoke   revoke an API key by its visible prefix
  accounts update  change an account's status, billing address or quotas
  tickets set-status  move a ticket to another status, as support staff would
  members list     list an account's members and their roles
  members set-role change a member's role (owner, member or viewer)
  members remove   take a member out of an account, revoking their keys of it
  members invite   invite an email to an account with a role (mails the link and prints it)
  webhooks set     point an owner's webhook at a URL; prints the token as the last line
  version          print the version, commit and Go version (also --version)

Run 'cloudplane <command> -h' for a command's flags.
`

type command func(ctx context.Context, args []string, stdout io.Writer) error

var commands = map[string]command{
	"serve":                serve,
	"migrate":              migrate,
	"backup":               backupCmd,
	"copy":                 copyCmd,
	"users create":         usersCreate,
	"users list":           usersList,
	"users reset-password": usersResetPassword,
	"users reset-2fa":      usersReset2FA,
	"apikeys create":       apikeysCreate,
	"apikeys revoke":       apikeysRevoke,
	"accounts update":      accountsUpdate,

	"tickets set-status": ticketsSetStatus,
	"webhooks set":       webhooksSet,
	"version":            versionCommand,

	"members list":     membersList,
	"members set-role": membersSetRole,
	"members remove":   membersRemove,
	"members invite":   membersInvite,
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if code := report(run(ctx, os.Args[1:], os.Stdout), os.Stderr); code != 0 {
		os.Exit(code)
	}
}

// report tells the operator what went wrong, in one line on stderr, and
// returns the exit code: 0 when err is nil, 2 otherwise.
func report(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	if !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(stderr, "cloudplane:", describe(err))
	}
	return 2
}

// describe turns a domain error into its message alone: the operator
// wants the sentence, not the code.
// Driver errors can span lines; an operator's terminal gets one.
func describe(err error) string {
	msg := err.Error()
	if e, ok := models.AsError(err); ok {
		msg = e.Message
	}
	return strings.Join(strings.Fields(msg), " ")
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	if len(args) > 0 && (args[0] == "--version" || args[0] == "-version") {
		return versionCommand(ctx, args[1:], stdout)
	}
	if len(args) == 0 || len(args[0]) > 0 && args[0][0] == '-' {
		return serve(ctx, args, stdout)
	}
	if args[0] == "help" || args[0] == "-h" {
		fmt.Fprint(stdout, usage)
		return nil
	}
	if cmd, ok := commands[args[0]]; ok {
		return cmd(ctx, args[1:], stdout)
	}
	if len(args) > 1 {
		if cmd, ok := commands[args[0]+" "+args[1]]; ok {
			return cmd(ctx, args[2:], stdout)
		}
	}
	return fmt.Errorf("unknown command %q; run 'cloudplane help'", args[0])
}
