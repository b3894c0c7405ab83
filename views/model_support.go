package views

import "time"

// NavAccounts is the support staff's accounts pages.
const NavAccounts = "accounts"

// Queue is what the support queue adds to the tickets page: its filters
// beyond status and its order, as given, and their choices.
type Queue struct {
	Assignee  string // a support user's id, unassigned or mine
	Age       string // a value of AgeOptions
	Sort      string // a value of SortOptions
	Assignees []Option
	Views     []SavedView  // the saved views, as links
	Headers   []SortHeader // the table's columns, sortable ones as links
}

// SavedView is a named filter of the queue, offered as a link.
type SavedView struct {
	Label   string
	Href    string
	Current bool
}

// SortHeader is a column of the queue's table: a link to sort by it when
// Href is set, and its aria-sort when the list is sorted by it.
type SortHeader struct {
	Label    string
	Href     string
	AriaSort string // ascending, descending or ""
}

// Filtered reports whether any of the queue's filters is set.
func (q Queue) Filtered() bool { return q.Assignee != "" || q.Age != "" || q.Sort != "" }

// AgeOptions are the queue's age filters: tickets opened at least this
// long ago.
var AgeOptions = []Option{{Value: "1d", Label: "Older than a day"}, {Value: "3d", Label: "Older than 3 days"},
	{Value: "7d", Label: "Older than a week"}, {Value: "30d", Label: "Older than 30 days"}}

// SortOptions are the queue's orders; the first (empty) is triage: most
// severe, then longest waiting.
var SortOptions = []Option{{Value: "waiting", Label: "Longest waiting first"}, {Value: "updated", Label: "Last activity first"},
	{Value: "oldest", Label: "Oldest first"}, {Value: "newest", Label: "Newest first"},
	{Value: "severity", Label: "Most severe, then oldest"}, {Value: "status", Label: "By status"},
	{Value: "assignee", Label: "By assignee, unassigned first"}}

// ThreadItem is one entry of a ticket's thread: a comment or an activity.
type ThreadItem struct {
	Comment  *Comment
	Activity *Activity
	File     *Attachment // a file attached at this point of the conversation
}

// Activity is a status change, an assignment change or an internal note,
// named from the viewer's side.
type Activity struct {
	Seq    int
	Kind   string // status, assignment or note
	Actor  string // "Support" for staff when an owner reads
	Staff  bool
	From   string // statuses, or assignees ("" for nobody; "" too when an owner reads)
	To     string
	Body   string
	Time   time.Time
	Viewer bool // the viewer is support staff
}

// Desk is what support staff see on a ticket beside the conversation.
type Desk struct {
	Assignee      string // the current assignee's id, "" for nobody
	AssigneeEmail string
	Me            string // the viewer's user id
	Assignees     []Option
	AssignError   string
}

// AccountList is the support list of accounts.
type AccountList struct {
	Email    string // the search as given
	Form     Form
	Accounts []AccountRow
	NextHref string
	Paged    bool
}

// AccountRow is an account as support staff see it.
type AccountRow struct {
	ID              string
	OwnerEmail      string
	Status          string
	BillingValid    bool
	FilesystemQuota int
	RulesetQuota    int
	Created         time.Time

	FabricPartitionQuota int

	// SpendCents and ForecastCents are the current month's (UTC) spend
	// so far and its forecast to the month's end.
	SpendCents, ForecastCents int64
}

// AccountDetail is one account, with the form that changes it.
type AccountDetail struct {
	AccountRow
	Form   Form
	CSRF   string
	Quotas []QuotaUsage
}

// AccountStatusOptions are the statuses support may give an account.
var AccountStatusOptions = []Option{{Value: "active", Label: "Active"}, {Value: "inactive", Label: "Inactive: API keys refused"}}

// BillingOptions are the billing address states.
var BillingOptions = []Option{{Value: "valid", Label: "Valid"}, {Value: "invalid", Label: "Invalid: no new billable resources"}}

// accountLabel names an account in a support list: by its owner's email,
// or by its short id if it has none.
func accountLabel(email, id string) string {
	if email != "" {
		return email
	}
	return "Account " + ShortID(id)
}
