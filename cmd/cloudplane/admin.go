package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"time"

	"cloudplane/models"
)

func usersCreate(ctx context.Context, args []string, stdout io.Writer) error {
	c := newDBCommand("users create")
	email := c.fs.String("email", "", "email address (sign-in name)")
	password := c.fs.String("password", "", "password, at least 10 characters")
	role := c.fs.String("role", models.RoleOwner, "owner or support")
	if err := c.parse(args, "email", "password"); err != nil {
		return err
	}
	return c.withStore(ctx, func(store *models.Store) error {
		u, err := store.CreateUser(ctx, models.OperatorActor, models.CreateUserInput{Email: *email, Password: *password, Role: *role})
		if err != nil {
			if _, lookupErr := store.UserByEmail(ctx, *email); lookupErr == nil {
				// The usual reason to create a user again is a lost password.
				return fmt.Errorf("%s already has a user; to give them a new password run: cloudplane users reset-password --email %s", *email, *email)
			}
			return err
		}
		fmt.Fprintf(stdout, "created %s user %s (id %s)\n", u.Role, u.Email, u.ID)
		return nil
	})
}

// ownerActor is the CLI acting for the owner with the given email, in
// the account they own (the one created with them while they still own
// it), so that keys it creates belong to them and audit events name them.
func ownerActor(ctx context.Context, store *models.Store, email string) (models.Actor, error) {
	u, err := store.UserByEmail(ctx, email)
	if err != nil {
		return models.Actor{}, err
	}
	if u.Role == models.RoleSupport {
		return models.Actor{}, fmt.Errorf("%s is a support user and has no account", u.Email)
	}
	return store.MemberActorByEmail(ctx, u.Email, u.Email)
}

func apikeysCreate(ctx context.Context, args []string, stdout io.Writer) error {
	c := newDBCommand("apikeys create")
	email := c.fs.String("email", "", "email of the owner the key acts for")
	name := c.fs.String("name", "", "a name to recognise the key by")
	readOnly := c.fs.Bool("read-only", false, "the key may only read (GET and HEAD); writes answer 403")
	expires := c.fs.String("expires", "never", "when the key stops working: never, a number of days such as 90d, or a date such as 2027-01-31 (through that day, UTC)")
	if err := c.parse(args, "email"); err != nil {
		return err
	}
	return c.withStore(ctx, func(store *models.Store) error {
		actor, err := ownerActor(ctx, store, *email)
		if err != nil {
			return err
		}
		k, secret, err := store.CreateAPIKey(ctx, actor, models.CreateAPIKeyInput{Name: *name, ReadOnly: *readOnly, Expires: *expires})
		if err != nil {
			return err
		}
		expiry := "never expires"
		if k.ExpiresAt != nil {
			expiry = "expires " + k.ExpiresAt.UTC().Format(time.RFC3339)
		}
		fmt.Fprintf(stdout, "created API key %q (prefix %s, %s, %s); it is shown once:\n%s\n", k.Name, k.Prefix, scopeText(k.Scope), expiry, secret)
		return nil
	})
}

func scopeText(scope string) string {
	if scope == models.ScopeReadOnly {
		return "read-only"
	}
	return "full access"
}

func apikeysRevoke(ctx context.Context, args []string, stdout io.Writer) error {
	c := newDBCommand("apikeys revoke")
	email := c.fs.String("email", "", "email of the key's owner")
	prefix := c.fs.String("prefix", "", "the key's visible prefix, e.g. cpk_1a2b3c4d")
	if err := c.parse(args, "email", "prefix"); err != nil {
		return err
	}
	return c.withStore(ctx, func(store *models.Store) error {
		actor, err := ownerActor(ctx, store, *email)
		if err != nil {
			return err
		}
		k, err := store.RevokeAPIKey(ctx, actor, *prefix)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "revoked API key %q (prefix %s)\n", k.Name, k.Prefix)
		return nil
	})
}

func accountsUpdate(ctx context.Context, args []string, stdout io.Writer) error {
	c := newDBCommand("accounts update")
	account := c.fs.String("account", "", "the account's ID, or the email of its owner when they own only this account")
	email := c.fs.String("email", "", "the same as --account (kept for scripts)")
	status := c.fs.String("status", "", "active or inactive")
	billing := c.fs.String("billing-address", "", "valid or invalid")
	fsQuota := c.fs.String("filesystem-quota", "", "most filesystems the account may have")
	rsQuota := c.fs.String("ruleset-quota", "", "most firewall rulesets the account may have")
	fpQuota := c.fs.String("fabric-partition-quota", "", "most fabric partitions the account may have")
	reason := c.fs.String("reason", "", "why, in words the account's owners read on their overview")
	if err := c.parse(args); err != nil {
		return err
	}
	ref := *account
	switch {
	case ref != "" && *email != "":
		return fmt.Errorf("give --account or --email, not both")
	case ref == "":
		ref = *email
	}
	if ref == "" {
		return fmt.Errorf("--account is required: the account's ID, or the email of its owner")
	}
	in := models.UpdateAccountInput{Reason: *reason}
	if *status != "" {
		in.Status = status
	}
	switch *billing {
	case "":
	case "valid", "invalid":
		valid := *billing == "valid"
		in.BillingAddressValid = &valid
	default:
		return fmt.Errorf("--billing-address must be valid or invalid")
	}
	var err error
	if in.FilesystemQuota, err = optionalInt("filesystem-quota", *fsQuota); err != nil {
		return err
	}
	if in.RulesetQuota, err = optionalInt("ruleset-quota", *rsQuota); err != nil {
		return err
	}
	if in.FabricPartitionQuota, err = optionalInt("fabric-partition-quota", *fpQuota); err != nil {
		return err
	}
	return c.withStore(ctx, func(store *models.Store) error {
		a, err := store.UpdateAccount(ctx, models.OperatorActor, ref, in)
		if err != nil {
			return err
		}
		billingState := "valid"
		if !a.BillingAddressValid {
			billingState = "invalid"
		}
		fmt.Fprintf(stdout, "account %s: status %s, billing address %s, filesystem quota %d, ruleset quota %d, fabric partition quota %d\n",
			a.ID, a.Status, billingState, a.FilesystemQuota, a.RulesetQuota, a.FabricPartitionQuota)
		return nil
	})
}

func optionalInt(name, v string) (*int, error) {
	if v == "" {
		return nil, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return nil, fmt.Errorf("--%s must be a whole number", name)
	}
	return &n, nil
}
