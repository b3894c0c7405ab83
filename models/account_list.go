package models

import (
	"context"
	"errors"

	"gorm.io/gorm"
)

// AccountPageSize is how many accounts a page of the support list holds.
const AccountPageSize = 50

// accountPageSecret names the server secret that signs account page tokens.
const accountPageSecret = "account-page-token"

// AccountListing is an account as support staff see it: the row and its
// owner's email.
type AccountListing struct {
	Account
	OwnerEmail string
}

// AccountFilter selects a page of the support list of accounts.
type AccountFilter struct {
	Email     string // part of the owner's email, any case
	PageToken string
	Limit     int // 0 or more than AccountPageSize means AccountPageSize
}

// AccountPage is one page of accounts, by owner email; NextPageToken is
// nil on the last.
type AccountPage struct {
	Accounts      []AccountListing
	NextPageToken *string
}

// accountOwnersSQL is each account with the first (by email) of its
// current owners, from the memberships: the user an account was created
// with may have left it, and an account may have several owners.
const accountOwnersSQL = "(SELECT memberships.account_id, MIN(users.email) AS email FROM memberships " +
	"JOIN users ON users.id = memberships.user_id WHERE memberships.role = 'owner' GROUP BY memberships.account_id) owners"

// accountListing reads accounts labelled by an owner's email.
func accountListing(db *gorm.DB) *gorm.DB {
	return db.Table("accounts").Select("accounts.*, owners.email AS owner_email").
		Joins("JOIN " + accountOwnersSQL + " ON owners.account_id = accounts.id")
}

// Accounts lists accounts by their owner's email, a page at a time by
// keyset, for support staff (others get CodeForbidden). A tampered page
// token is CodeInvalidParameters.
func (s *Store) Accounts(ctx context.Context, actor Actor, f AccountFilter) (*AccountPage, error) {
	if !actor.isStaff() {
		return nil, Errorf(CodeForbidden, "Only support staff list accounts")
	}
	if f.Limit <= 0 || f.Limit > AccountPageSize {
		f.Limit = AccountPageSize
	}
	q := accountListing(s.read(ctx))
	if email := normalizeEmail(f.Email); email != "" {
		if msg := textProblem(email, false); msg != "" {
			return nil, InvalidField("email", msg)
		}
		// Any current owner's email finds the account.
		q = q.Where("EXISTS (SELECT 1 FROM memberships JOIN users ON users.id = memberships.user_id "+
			"WHERE memberships.account_id = accounts.id AND memberships.role = ? AND users.email "+likeOperator(q)+" ? ESCAPE '\\')",
			RoleOwner, "%"+likeEscaper.Replace(email)+"%")
	}
	if f.PageToken != "" {
		c, err := s.openCursor(ctx, accountPageSecret, f.PageToken, "email", false)
		if err != nil {
			return nil, err
		}
		q = q.Where("(owners.email > ? OR (owners.email = ? AND accounts.id > ?))", c.Key, c.Key, c.ID)
	}
	var rows []AccountListing
	if err := q.Order("owners.email, accounts.id").Limit(f.Limit + 1).Find(&rows).Error; err != nil {
		return nil, err
	}
	page := &AccountPage{Accounts: rows}
	if len(rows) > f.Limit {
		page.Accounts = rows[:f.Limit]
		last := page.Accounts[f.Limit-1]
		token, err := s.signCursor(ctx, accountPageSecret, cursor{OrderBy: "email", Key: last.OwnerEmail, ID: last.ID})
		if err != nil {
			return nil, err
		}
		page.NextPageToken = &token
	}
	return page, nil
}

// AccountForSupport returns one account with its owner's email, for
// support staff (others get CodeForbidden); an unknown id is CodeNotFound.
func (s *Store) AccountForSupport(ctx context.Context, actor Actor, id string) (*AccountListing, error) {
	if !actor.isStaff() {
		return nil, Errorf(CodeForbidden, "Only support staff see other accounts")
	}
	if !IsID(id) {
		return nil, NotFound("account", id)
	}
	var a AccountListing
	err := accountListing(s.read(ctx)).Where("accounts.id = ?", id).Take(&a).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, NotFound("account", id)
	}
	return &a, err
}
