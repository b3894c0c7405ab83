package models

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"
)

// SSODomain links an email domain to an account and an OpenID provider:
// people with an address there sign in through that provider only, and
// one with no user yet joins the account with DefaultRole the first time.
// A domain links to one account.
type SSODomain struct {
	Domain      string    `gorm:"primaryKey;size:253"`
	AccountID   string    `gorm:"size:32;not null;index:idx_sso_domains_account"`
	Provider    string    `gorm:"size:64;not null"`
	DefaultRole string    `gorm:"size:16;not null"`
	CreatedBy   string    `gorm:"size:254;not null"` // the linking owner's email
	CreatedAt   time.Time `gorm:"not null;autoCreateTime:false"`
}

// SSODomainInput links Domain to Provider (a configured provider's id),
// with DefaultRole (owner, member or viewer; member when empty) for
// people who join just in time.
type SSODomainInput struct {
	Domain      string
	Provider    string
	DefaultRole string
}

var domainPattern = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$`)

// publicMailDomains are mailboxes anyone can open: no one owns them, so
// none may be linked, whatever its owner's address.
var publicMailDomains = []string{"gmail.com", "googlemail.com", "outlook.com", "hotmail.com", "live.com",
	"msn.com", "yahoo.com", "icloud.com", "me.com", "mac.com", "aol.com", "proton.me", "protonmail.com",
	"gmx.com", "gmx.de", "gmx.net", "web.de", "mail.com", "yandex.com", "yandex.ru", "zoho.com", "fastmail.com"}

// Validate normalises the domain and the role and checks them.
func (in *SSODomainInput) Validate() error {
	var f FieldErrors
	in.Domain = strings.TrimPrefix(strings.ToLower(strings.TrimSpace(in.Domain)), "@")
	if in.DefaultRole == "" {
		in.DefaultRole = RoleMember
	}
	switch {
	case in.Domain == "":
		f.Add("domain", "is required")
	case len(in.Domain) > 253 || !domainPattern.MatchString(in.Domain):
		f.Add("domain", "must be a domain name such as example.com")
	case slices.Contains(publicMailDomains, in.Domain):
		f.Add("domain", "is a public mail service, which no organization owns")
	}
	if in.Provider == "" || len(in.Provider) > 64 {
		f.Add("provider", "is required")
	}
	if !slices.Contains(MemberRoles, in.DefaultRole) {
		f.Add("default_role", "must be one of "+strings.Join(MemberRoles, ", "))
	}
	return f.Err()
}

// SSODomains lists the domains linked to the actor's account, by name.
// Any member may read them (they say how the account's people sign in).
func (s *Store) SSODomains(ctx context.Context, actor Actor) ([]SSODomain, error) {
	accountID, err := actor.ownAccount()
	if err != nil {
		return nil, err
	}
	var out []SSODomain
	err = s.read(ctx).Where("account_id = ?", accountID).Order("domain").Find(&out).Error
	return out, err
}

// LinkSSODomain links a domain to the actor's account. Only an owner may
// (checked again under the account's lock), and only for a domain that is
// demonstrably theirs, so an owner cannot capture other people's sign-in:
//   - it is the domain of the owner's own email, and not a public mail
//     service;
//   - the owner has an identity at Provider (connected from their account
//     page, ConnectSSOIdentity) whose email the provider verified is in
//     the domain: the provider vouches for the domain;
//   - every existing user with an address there is already a member of
//     the account: linking changes how they sign in, so it may not reach
//     people outside it.
//
// A domain linked to any account is CodeDuplicate. Records
// sso_domain/created.
func (s *Store) LinkSSODomain(ctx context.Context, actor Actor, in SSODomainInput) (*SSODomain, error) {
	accountID, err := actor.manages()
	if err != nil {
		return nil, err
	}
	if err := in.Validate(); err != nil {
		return nil, err
	}
	if _, own, _ := strings.Cut(normalizeEmail(actor.Email), "@"); own != in.Domain {
		return nil, InvalidField("domain", "must be the domain of your own email address")
	}
	d := &SSODomain{Domain: in.Domain, AccountID: accountID, Provider: in.Provider, DefaultRole: in.DefaultRole,
		CreatedBy: actor.Email, CreatedAt: s.Now()}
	err = s.write(ctx, func(tx *gorm.DB) error {
		if _, err := lockAccount(tx, accountID); err != nil {
			return err
		}
		if err := ownerNow(tx, actor, accountID); err != nil {
			return err
		}
		linked := Errorf(CodeDuplicate, "%s is already linked to single sign-on", in.Domain)
		if existing, err := ssoDomainOf(tx, "@"+in.Domain); err != nil {
			return err
		} else if existing != nil {
			return linked
		}
		if err := ownerVouchedFor(tx, actor, in); err != nil {
			return err
		}
		if err := tx.Create(d).Error; err != nil {
			if errors.Is(err, gorm.ErrDuplicatedKey) {
				return linked
			}
			return err
		}
		return s.audit(tx, actor, accountID, "sso_domain", "created", []string{lrn("sso_domain", d.Domain)},
			map[string]any{"domain": d.Domain, "provider": d.Provider, "default_role": d.DefaultRole})
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// ownerVouchedFor checks LinkSSODomain's proofs inside tx.
func ownerVouchedFor(tx *gorm.DB, actor Actor, in SSODomainInput) error {
	var ids int64
	if err := tx.Model(&SSOIdentity{}).Where("provider = ? AND user_id = ? AND email LIKE ?",
		in.Provider, actor.UserID, "%@"+in.Domain).Count(&ids).Error; err != nil {
		return err
	}
	if ids == 0 {
		return InvalidField("provider", "must be connected to you with your "+in.Domain+
			" address: connect it under Connected sign-ins on your account page, then link the domain")
	}
	accountID, _ := actor.ownAccount()
	var outsiders int64
	err := tx.Model(&User{}).Where("email LIKE ? AND id NOT IN (?)", "%@"+in.Domain,
		tx.Model(&Membership{}).Select("user_id").Where("account_id = ?", accountID)).Count(&outsiders).Error
	if err != nil {
		return err
	}
	if outsiders > 0 {
		return &Error{Code: CodeConflict, Fields: map[string]string{"domain": "has users outside this account"},
			Message:    in.Domain + " has users who are not members of this account",
			Suggestion: "Invite them first, or ask the operator: linking would change how they sign in"}
	}
	return nil
}

// UnlinkSSODomain ends the link of a domain of the actor's account: its
// people sign in with a password again (a user who joined just in time
// has none, and sets one with "Forgot your password?"). Owners only.
// Records sso_domain/deleted.
func (s *Store) UnlinkSSODomain(ctx context.Context, actor Actor, domain string) error {
	accountID, err := actor.manages()
	if err != nil {
		return err
	}
	return s.write(ctx, func(tx *gorm.DB) error {
		if _, err := lockAccount(tx, accountID); err != nil {
			return err
		}
		if err := ownerNow(tx, actor, accountID); err != nil {
			return err
		}
		var d SSODomain
		err := tx.Where("domain = ? AND account_id = ?", domain, accountID).Take(&d).Error
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return NotFound("SSO domain", domain)
		} else if err != nil {
			return err
		}
		if err := tx.Delete(&d).Error; err != nil {
			return err
		}
		return s.audit(tx, actor, accountID, "sso_domain", "deleted", []string{lrn("sso_domain", d.Domain)},
			map[string]any{"domain": d.Domain, "provider": d.Provider})
	})
}
