package models

import (
	"context"
	"strings"
	"unicode/utf8"

	"gorm.io/gorm"
)

// Kinds of search results, in the order Search returns them.
const (
	SearchInstance   = "instance"
	SearchFilesystem = "filesystem"
	SearchSSHKey     = "ssh_key"
	SearchAPIKey     = "api_key"
	SearchTicket     = "ticket"
	SearchWebhook    = "webhook"
	SearchAccount    = "account"
)

// SearchPerKind bounds how many results of one kind Search returns, and
// SearchMaxQuery how long a query may be.
const (
	SearchPerKind  = 5
	SearchMaxQuery = 100
)

// SearchResult is one object found: its kind, id, what it is called
// (name, subject, URL or email) and, for staff, the account it belongs to.
type SearchResult struct {
	Kind      string
	ID        string
	Name      string
	AccountID string
}

// SearchResults are Search's answer, grouped by kind in the kinds' order.
type SearchResults struct {
	Query   string
	Results []SearchResult
}

// Search finds the objects the actor may see whose name starts with query,
// case-insensitively, or whose id is query: in the actor's account its
// instances, filesystems, SSH keys, API keys (an owner's every member's, a
// member's own), ticket subjects and webhook endpoints (whose URL contains
// query); for support staff, accounts by an owner's or member's email and
// tickets across accounts. Each kind gives at most SearchPerKind results,
// found through an index on the lower-cased name (migration 0029), so a
// search costs a few index probes whatever the number of objects. An
// empty query finds nothing; a query longer than SearchMaxQuery fails with
// CodeInvalidParameters. Anyone who is neither a member of an account nor
// support staff gets CodeForbidden.
func (s *Store) Search(ctx context.Context, actor Actor, query string) (*SearchResults, error) {
	query = strings.TrimSpace(query)
	if utf8.RuneCountInString(query) > SearchMaxQuery {
		return nil, InvalidField("q", "must be at most 100 characters")
	}
	out := &SearchResults{Query: query, Results: []SearchResult{}}
	if !actor.IsSupport() {
		if _, err := actor.ownAccount(); err != nil {
			return nil, err
		}
	}
	if query == "" {
		return out, nil
	}
	var steps []func(db *gorm.DB, p searchPattern) ([]SearchResult, error)
	if actor.IsSupport() {
		steps = []func(*gorm.DB, searchPattern) ([]SearchResult, error){searchAccounts, s.searchTickets("")}
	} else {
		steps = []func(*gorm.DB, searchPattern) ([]SearchResult, error){
			searchNamed(SearchInstance, "instances", "name", actor.AccountID, s.liveInstances()),
			searchNamed(SearchFilesystem, "filesystems", "name", actor.AccountID, nil),
			searchNamed(SearchSSHKey, "ssh_keys", "name", actor.AccountID, nil),
			searchNamed(SearchAPIKey, "api_keys", "name", actor.AccountID, apiKeysOf(actor)),
			s.searchTickets(actor.AccountID),
			searchWebhooks(actor.AccountID),
		}
	}
	p := newSearchPattern(query)
	err := s.readTogether(ctx, func(ctx context.Context) error {
		db := s.read(ctx)
		for _, step := range steps {
			found, err := step(db, p)
			if err != nil {
				return err
			}
			out.Results = append(out.Results, found...)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// searchPattern is a query as the searches use it: the lower-cased prefix
// as a range an index on lower(column) answers on both databases (LIKE
// with a parameter is not, on either), and a LIKE pattern that checks it.
type searchPattern struct {
	raw, low, high, like, contains string
}

func newSearchPattern(q string) searchPattern {
	low := strings.ToLower(q)
	escaped := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(low)
	return searchPattern{raw: q, low: low, high: low + "\U0010FFFF", like: escaped + "%", contains: "%" + escaped + "%"}
}

// prefix limits q to the rows whose lower(col) starts with the query, or
// whose id is the query.
func (p searchPattern) prefix(q *gorm.DB, table, col string) *gorm.DB {
	expr := "lower(" + table + "." + col + ")"
	byName := q.Session(&gorm.Session{NewDB: true}).
		Where(expr+" >= ? AND "+expr+" < ? AND "+expr+` LIKE ? ESCAPE '\'`, p.low, p.high, p.like)
	if IsID(p.raw) {
		return q.Where(byName.Or(table+".id = ?", p.raw))
	}
	return q.Where(byName)
}

type searchRow struct {
	ID, Name, AccountID string
}

func toResults(kind string, rows []searchRow) []SearchResult {
	out := make([]SearchResult, len(rows))
	for i, r := range rows {
		out[i] = SearchResult{Kind: kind, ID: r.ID, Name: r.Name, AccountID: r.AccountID}
	}
	return out
}

// searchNamed searches an account's table by the prefix of its name
// column, with extra narrowing the rows (nil for none).
func searchNamed(kind, table, col, accountID string, extra func(*gorm.DB) *gorm.DB) func(*gorm.DB, searchPattern) ([]SearchResult, error) {
	return func(db *gorm.DB, p searchPattern) ([]SearchResult, error) {
		q := db.Table(table).Select(table+".id, "+table+"."+col+" AS name, "+table+".account_id").
			Where(table+".account_id = ?", accountID)
		if extra != nil {
			q = extra(q)
		}
		var rows []searchRow
		err := p.prefix(q, table, col).Order("lower(" + table + "." + col + "), " + table + ".id").
			Limit(SearchPerKind).Scan(&rows).Error
		return toResults(kind, rows), err
	}
}

// liveInstances leaves out the terminated instances, which no page lists.
func (s *Store) liveInstances() func(*gorm.DB) *gorm.DB {
	return func(q *gorm.DB) *gorm.DB {
		return q.Where("NOT (instances.status = ? OR (instances.status = ? AND instances.status_until <= ?))",
			InstanceTerminated, InstanceTerminating, s.Now())
	}
}

// apiKeysOf keeps the unrevoked keys the actor sees (visibleKeys).
func apiKeysOf(actor Actor) func(*gorm.DB) *gorm.DB {
	return func(q *gorm.DB) *gorm.DB {
		q = q.Where("api_keys.revoked_at IS NULL")
		if actor.Role != RoleOwner {
			q = q.Where("api_keys.user_id = ?", actor.UserID)
		}
		return q
	}
}

// searchTickets searches ticket subjects, in one account or ("") in all.
func (s *Store) searchTickets(accountID string) func(*gorm.DB, searchPattern) ([]SearchResult, error) {
	return func(db *gorm.DB, p searchPattern) ([]SearchResult, error) {
		q := db.Table("tickets").Select("tickets.id, tickets.subject AS name, tickets.account_id")
		if accountID != "" {
			q = q.Where("tickets.account_id = ?", accountID)
		}
		var rows []searchRow
		err := p.prefix(q, "tickets", "subject").Order("lower(tickets.subject), tickets.id").
			Limit(SearchPerKind).Scan(&rows).Error
		return toResults(SearchTicket, rows), err
	}
}

// searchWebhooks finds an account's endpoints whose URL contains the
// query: an account has a handful, read through its account_id index.
func searchWebhooks(accountID string) func(*gorm.DB, searchPattern) ([]SearchResult, error) {
	return func(db *gorm.DB, p searchPattern) ([]SearchResult, error) {
		var rows []searchRow
		err := db.Table("webhook_endpoints").Select("id, url AS name, account_id").
			Where("account_id = ?", accountID).
			Where(db.Session(&gorm.Session{NewDB: true}).Where(`lower(url) LIKE ? ESCAPE '\'`, p.contains).Or("id = ?", p.raw)).
			Order("created_at, id").Limit(SearchPerKind).Scan(&rows).Error
		return toResults(SearchWebhook, rows), err
	}
}

// searchAccounts finds, for staff, the accounts with an owner or member
// whose email starts with the query (emails are stored lower-cased, under
// a unique index), or whose id is the query; Name is the email found.
func searchAccounts(db *gorm.DB, p searchPattern) ([]SearchResult, error) {
	var rows []searchRow
	q := db.Table("users").Select("memberships.account_id AS id, users.email AS name, memberships.account_id").
		Joins("JOIN memberships ON memberships.user_id = users.id").
		Where(`users.email >= ? AND users.email < ? AND users.email LIKE ? ESCAPE '\'`, p.low, p.high, p.like).
		Order("users.email, memberships.account_id").Limit(SearchPerKind)
	if err := q.Scan(&rows).Error; err != nil {
		return nil, err
	}
	if IsID(p.raw) && len(rows) < SearchPerKind {
		var byID []searchRow
		err := db.Table("accounts").Select("accounts.id, COALESCE(users.email, '') AS name, accounts.id AS account_id").
			Joins("LEFT JOIN memberships ON memberships.account_id = accounts.id AND memberships.role = ?", RoleOwner).
			Joins("LEFT JOIN users ON users.id = memberships.user_id").
			Where("accounts.id = ?", p.raw).Limit(1).Scan(&byID).Error
		if err != nil {
			return nil, err
		}
		rows = append(rows, byID...)
	}
	return toResults(SearchAccount, rows), nil
}
