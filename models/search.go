package models

import (
	"context"
	"slices"
	"strconv"
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

// Search finds the objects the actor may see by what people remember of
// them, case-insensitively: the start of a name, the start of an id (at
// least MinSearchIDPrefix hex digits). In the actor's account, its
// instances, filesystems, SSH keys and API keys (an owner's every
// member's, a member's own) by name; tickets by subject (its start, or
// each word of the query anywhere in it) and by number ("#" and the id's
// last eight digits, or their start); webhook endpoints by a part of the
// URL. For support staff, tickets across accounts as above and accounts
// by any part of an owner's or member's email, or the account's id. Each
// kind gives at most SearchPerKind results, found through indexes on the
// lower-cased names (migration 0029), on ids and ticket numbers
// (migration 0031); the searches by words and by a part of an email scan
// and stop at the fifth found. An empty query finds nothing; a query
// longer than SearchMaxQuery fails with CodeInvalidParameters. Anyone who
// is neither a member of an account nor support staff gets CodeForbidden.
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
	// idPrefix is the query as the start of an id (lower-case hex, at
	// least MinSearchIDPrefix digits), or "" when it cannot be one.
	idPrefix string
	// number is the query as a ticket's number, the end of its id that
	// pages show as "#" and eight digits: its start, "" when it cannot be
	// one.
	number string
	// words are the query's words, each a LIKE pattern of a substring.
	words []string
}

// MinSearchIDPrefix is the fewest hex digits a query needs to be read as
// the start of an id (or of a ticket's number): fewer would match most
// of an account's objects.
const MinSearchIDPrefix = 4

// ticketNumberLen is how many of an id's last digits make a ticket's
// number (views.ShortID).
const ticketNumberLen = 8

func newSearchPattern(q string) searchPattern {
	low := strings.ToLower(q)
	esc := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	escaped := esc.Replace(low)
	p := searchPattern{raw: q, low: low, high: low + "\U0010FFFF", like: escaped + "%", contains: "%" + escaped + "%"}
	if low != "" && isHex(low) && len(low) >= MinSearchIDPrefix && len(low) <= 32 {
		p.idPrefix = low
	}
	if n := strings.TrimPrefix(low, "#"); n != "" && isHex(n) && len(n) >= MinSearchIDPrefix && len(n) <= ticketNumberLen {
		p.number = n
	}
	for _, w := range strings.Fields(low) {
		p.words = append(p.words, "%"+esc.Replace(w)+"%")
	}
	return p
}

// byIDPrefix finds the rows of q (of table) whose id starts with the
// query, through an index on (account_id, id) or the id's own, in id
// order; nothing when the query cannot start an id.
func (p searchPattern) byIDPrefix(q *gorm.DB, table string) ([]searchRow, error) {
	if p.idPrefix == "" {
		return nil, nil
	}
	var rows []searchRow
	err := q.Where(table+".id >= ? AND "+table+".id < ?", p.idPrefix, p.idPrefix+"g").
		Order(table + ".id").Limit(SearchPerKind).Scan(&rows).Error
	return rows, err
}

// merge appends to rows those of more not in it yet, up to SearchPerKind.
func merge(rows, more []searchRow) []searchRow {
	for _, r := range more {
		if len(rows) >= SearchPerKind {
			break
		}
		if !slices.ContainsFunc(rows, func(x searchRow) bool { return x.ID == r.ID }) {
			rows = append(rows, r)
		}
	}
	return rows
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
// column, then by the start of the id, with extra narrowing the rows (nil
// for none).
func searchNamed(kind, table, col, accountID string, extra func(*gorm.DB) *gorm.DB) func(*gorm.DB, searchPattern) ([]SearchResult, error) {
	return func(db *gorm.DB, p searchPattern) ([]SearchResult, error) {
		base := func() *gorm.DB {
			q := db.Table(table).Select(table+".id, "+table+"."+col+" AS name, "+table+".account_id").
				Where(table+".account_id = ?", accountID)
			if extra != nil {
				q = extra(q)
			}
			return q
		}
		var rows []searchRow
		err := p.prefix(base(), table, col).Order("lower(" + table + "." + col + "), " + table + ".id").
			Limit(SearchPerKind).Scan(&rows).Error
		if err != nil || len(rows) >= SearchPerKind {
			return toResults(kind, rows), err
		}
		byID, err := p.byIDPrefix(base(), table)
		return toResults(kind, merge(rows, byID)), err
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

// searchTickets searches tickets, in one account or ("") in all: by the
// prefix of the subject (through its index), then by the number pages
// show ("#" and the id's last eight digits, or their start: an index on
// them, migration 0031), by the start of the id, and by the subject's
// words (each word of the query anywhere in the subject, in any order: a
// scan of the account's tickets, or of all for staff, that stops at the
// fifth found).
func (s *Store) searchTickets(accountID string) func(*gorm.DB, searchPattern) ([]SearchResult, error) {
	return func(db *gorm.DB, p searchPattern) ([]SearchResult, error) {
		base := func() *gorm.DB {
			q := db.Table("tickets").Select("tickets.id, tickets.subject AS name, tickets.account_id")
			if accountID != "" {
				q = q.Where("tickets.account_id = ?", accountID)
			}
			return q
		}
		var rows []searchRow
		err := p.prefix(base(), "tickets", "subject").Order("lower(tickets.subject), tickets.id").
			Limit(SearchPerKind).Scan(&rows).Error
		if err != nil {
			return nil, err
		}
		if p.number != "" && len(rows) < SearchPerKind {
			var byNumber []searchRow
			expr := "substr(tickets.id, " + strconv.Itoa(32-ticketNumberLen+1) + ")"
			err := base().Where(expr+" >= ? AND "+expr+" < ?", p.number, p.number+"g").
				Order(expr).Limit(SearchPerKind).Scan(&byNumber).Error
			if err != nil {
				return nil, err
			}
			rows = merge(rows, byNumber)
		}
		if len(rows) < SearchPerKind {
			byID, err := p.byIDPrefix(base(), "tickets")
			if err != nil {
				return nil, err
			}
			rows = merge(rows, byID)
		}
		if len(p.words) > 0 && len(rows) < SearchPerKind {
			q := base()
			for _, w := range p.words {
				q = q.Where(`lower(tickets.subject) LIKE ? ESCAPE '\'`, w)
			}
			var byWords []searchRow
			if err := q.Order("tickets.created_at DESC, tickets.id").Limit(SearchPerKind).Scan(&byWords).Error; err != nil {
				return nil, err
			}
			rows = merge(rows, byWords)
		}
		return toResults(SearchTicket, rows), nil
	}
}

// searchWebhooks finds an account's endpoints whose URL contains the
// query: an account has a handful, read through its account_id index.
func searchWebhooks(accountID string) func(*gorm.DB, searchPattern) ([]SearchResult, error) {
	return func(db *gorm.DB, p searchPattern) ([]SearchResult, error) {
		var rows []searchRow
		match := db.Session(&gorm.Session{NewDB: true}).Where(`lower(url) LIKE ? ESCAPE '\'`, p.contains)
		if p.idPrefix != "" {
			match = match.Or("id >= ? AND id < ?", p.idPrefix, p.idPrefix+"g")
		}
		err := db.Table("webhook_endpoints").Select("id, url AS name, account_id").
			Where("account_id = ?", accountID).Where(match).
			Order("created_at, id").Limit(SearchPerKind).Scan(&rows).Error
		return toResults(SearchWebhook, rows), err
	}
}

// searchAccounts finds, for staff, the accounts with an owner or member
// whose email starts with the query (emails are stored lower-cased, under
// a unique index), then those whose email contains it (a scan of the
// emails that stops at the fifth found), or whose id is or starts with
// the query; Name is the email found.
func searchAccounts(db *gorm.DB, p searchPattern) ([]SearchResult, error) {
	var rows []searchRow
	base := func() *gorm.DB {
		return db.Table("users").Select("memberships.account_id AS id, users.email AS name, memberships.account_id").
			Joins("JOIN memberships ON memberships.user_id = users.id")
	}
	q := base().Where(`users.email >= ? AND users.email < ? AND users.email LIKE ? ESCAPE '\'`, p.low, p.high, p.like).
		Order("users.email, memberships.account_id").Limit(SearchPerKind)
	if err := q.Scan(&rows).Error; err != nil {
		return nil, err
	}
	if len(rows) < SearchPerKind {
		var inside []searchRow
		err := base().Where(`users.email LIKE ? ESCAPE '\'`, p.contains).
			Order("users.email, memberships.account_id").Limit(SearchPerKind).Scan(&inside).Error
		if err != nil {
			return nil, err
		}
		rows = mergeAccounts(rows, inside)
	}
	if p.idPrefix != "" && len(rows) < SearchPerKind {
		var byID []searchRow
		err := db.Table("accounts").Select("accounts.id, COALESCE(users.email, '') AS name, accounts.id AS account_id").
			Joins("LEFT JOIN memberships ON memberships.account_id = accounts.id AND memberships.role = ?", RoleOwner).
			Joins("LEFT JOIN users ON users.id = memberships.user_id").
			Where("accounts.id >= ? AND accounts.id < ?", p.idPrefix, p.idPrefix+"g").
			Order("accounts.id").Limit(SearchPerKind).Scan(&byID).Error
		if err != nil {
			return nil, err
		}
		rows = mergeAccounts(rows, byID)
	}
	return toResults(SearchAccount, rows), nil
}

// mergeAccounts is merge for accounts found by email, where one account
// may be found through two of its people: each email found once.
func mergeAccounts(rows, more []searchRow) []searchRow {
	for _, r := range more {
		if len(rows) >= SearchPerKind {
			break
		}
		if !slices.ContainsFunc(rows, func(x searchRow) bool { return x.ID == r.ID && x.Name == r.Name }) {
			rows = append(rows, r)
		}
	}
	return rows
}
