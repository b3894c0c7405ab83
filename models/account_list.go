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

// accountListing reads accounts with their owner's email.
func accountListing(db *gorm.DB) *gorm.DB {
	return db.Table("accounts").Select("accounts.*, users.email AS owner_email").
		Joins("JOIN users ON users.account_id = accounts.id AND users.role = ?", RoleOwner)
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
		q = q.Where("users.email "+likeOperator(q)+" ? ESCAPE '\\'", "%"+likeEscaper.Replace(email)+"%")
	}
	if f.PageToken != "" {
		c, err := s.openCursor(ctx, accountPageSecret, f.PageToken, "email", false)
		if err != nil {
			return nil, err
		}
		q = q.Where("(users.email > ? OR (users.email = ? AND accounts.id > ?))", c.Key, c.Key, c.ID)
	}
	var rows []AccountListing
	if err := q.Order("users.email, accounts.id").Limit(f.Limit + 1).Find(&rows).Error; err != nil {
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
