// Package views holds the dashboard's templ components. Components take
// the display structs defined here, never database rows, and each page's
// content component is the same whether it is rendered inside the full
// layout or returned alone as an htmx fragment.
package views

import "time"

// Meta frames a page: its title, the active navigation item, who is
// signed in, the CSRF token and a message from the previous request.
type Meta struct {
	Title string
	Nav   string // one of the Nav constants, or ""
	User  *User  // nil when signed out
	CSRF  string
	Flash *Flash
	// Refresh, when set, reloads the page after this many seconds in a
	// browser without script (a page that changes by itself, which
	// htmx polls with script).
	Refresh int
}

// Navigation items.
const (
	NavOverview = "overview"
	NavAPIKeys  = "api-keys"
	NavAccount  = "account"
	NavMembers  = "members"

	NavFilesystems = "filesystems"
	NavFirewall    = "firewall"
)

// User is the signed-in user as the header shows them: for a member of
// an account, their role in the account the session acts on, and the
// accounts they may switch to.
type User struct {
	Email      string
	Support    bool
	MemberRole string // owner, member or viewer; "" for staff or no account
	// AccountID is the account the session acts on; Accounts every
	// account of theirs (the switcher shows when there are two or more).
	AccountID string
	Accounts  []AccountChoice
}

// AccountChoice is one account in the header's switcher.
type AccountChoice struct {
	ID    string
	Label string // whose account: its owner's email
	Role  string
}

// Role is the user's role as the domain names it.
func (u User) Role() string {
	if u.Support {
		return "support"
	}
	return u.MemberRole
}

// Owns reports whether the user owns the account the session acts on:
// pages show the controls of members, webhooks and everyone's keys.
func (u *User) Owns() bool { return u != nil && u.MemberRole == "owner" }

// Operates reports whether the user may change the account's resources
// (owner or member); a viewer's pages hide the forms.
func (u *User) Operates() bool {
	return u != nil && (u.MemberRole == "owner" || u.MemberRole == "member")
}

// Flash kinds; they are also the CSS modifiers of flashes and alerts.
const (
	Success = "success"
	Info    = "info"
	Warning = "warning"
	Danger  = "danger"

	Neutral = "neutral" // a badge for a plain state
)

// Flash is a one-line message about what the last request did.
type Flash struct {
	Kind string
	Text string
}

// Alert is a standing notice with a title, such as an account warning.
type Alert struct {
	Kind  string
	Title string
	Text  string
	// Href leads to where the problem is fixed, as Link says.
	Href string
	Link string
	// Href2 and Link2, when set, are a second place to go.
	Href2 string
	Link2 string
}

// Form carries a submitted form's values and problems back to its page.
type Form struct {
	Values  map[string]string
	Errors  map[string]string // by field name
	Message string            // a problem with the form as a whole
}

// Value is the submitted value of a field.
func (f Form) Value(name string) string { return f.Values[name] }

// Error is the problem with a field, or "".
func (f Form) Error(name string) string { return f.Errors[name] }

// Field is one labelled control: an input, a select, a textarea, or a
// group of radio buttons or checkboxes (see fields.templ).
type Field struct {
	Name         string
	Label        string
	Type         string // of an input; text when empty
	Value        string
	Error        string // the domain's message about the value
	Hint         string
	Autocomplete string
	MaxLength    int
	Placeholder  string // an input's example, or a select's first option, which chooses nothing
	Required     bool
	Autofocus    bool
	Options      []Option // the choices of a select, radio group or checkbox list
	Code         bool     // a textarea holding a key or code: monospace, not spellchecked
}

// Confirm asks before a destructive action. The same component is a page
// of its own without script and a modal dialog with it.
type Confirm struct {
	Title      string
	Text       string
	Action     string // URL the form posts to
	Submit     string // label of the confirming button
	CancelHref string
	CSRF       string
	InDialog   bool
	// ViewerAllowed marks an action a viewer may take (leaving, revoking
	// their own key): the style that hides a viewer's forms keeps it.
	ViewerAllowed bool
}

// ErrorPage explains a failed request.
type ErrorPage struct {
	Status     int
	Title      string
	Message    string
	Suggestion string
	RequestID  string
	Links      []ErrorLink // ways on before the home page: the list the object would be in
}

// ErrorLink is a way on from an error page.
type ErrorLink struct {
	Href, Label string
}

// SignIn is the sign-in page.
type SignIn struct {
	Form   Form
	Next   string
	Notice *Flash
	CSRF   string
	// SetupPending: no user exists yet; the first owner signs up through
	// the setup link in the server's log.
	SetupPending bool
	SSO          []SSOButton // the identity providers to sign in with
}

// Setup is the first-run page where the first owner signs up.
type Setup struct {
	Action string
	Form   Form
	CSRF   string
}

// PasswordReset is the form behind an operator's reset link.
type PasswordReset struct {
	Action string
	Email  string
	Form   Form
	CSRF   string
}

// Overview is an owner's dashboard home.
type Overview struct {
	Alerts    []Alert
	Resources []ResourceCount
	Events    []Event
	Checklist []ChecklistStep // shown until every step is done
	Spend     *MonthSpend     // this month's cost; nil hides it
}

// MonthSpend is the current month's cost so far and its forecast, in
// cents (UTC month).
type MonthSpend struct {
	Month    time.Time
	Actual   int64
	Forecast int64
}

// ResourceCount is one tile of the overview: how many of a resource the
// account has, against its quota when it has one.
type ResourceCount struct {
	Label    string
	Count    int64
	Quota    int
	HasQuota bool
	Href     string // "" until the resource has its pages
	Note     string
}

// Event is one line of recent activity.
type Event struct {
	Time    time.Time
	Summary string
	Actor   string
}

// SupportHome is the home page of support staff.
type SupportHome struct {
	Email   string
	Tickets []TicketRow // the newest unresolved tickets, at most a page
	More    bool        // more unresolved tickets than shown
}

// APIKeys is the API keys page.
type APIKeys struct {
	Keys    []APIKey
	Form    Form
	Created *CreatedKey // set right after a key was generated
	APIBase string      // for the usage example
	CSRF    string
	// Everyone is set for an owner, who sees every member's keys; Viewer
	// for a viewer, who may create read-only keys only.
	Everyone bool
	Viewer   bool
}

// APIKey is one row of the keys table.
type APIKey struct {
	ID       string
	Owner    string // email of the member whose key it is
	Name     string
	Prefix   string
	ReadOnly bool
	Created  time.Time
	LastUsed *time.Time
	Expires  *time.Time
	// Warning says why the key wants attention (it expires soon, has
	// expired, or has not been used for long), or is "".
	Warning string
	Expired bool
}

// CreatedKey is a key just generated, with the secret shown this once.
type CreatedKey struct {
	Name   string
	Secret string
}

// Account is the account settings page.
type Account struct {
	Email         string
	Role          string
	AccountID     string // "" for support staff
	AccountStatus string
	Form          Form
	EmailChange   EmailChange
	Notifications Notifications
	Passkeys      Passkeys
	Sessions      Sessions
	TwoFactor     TwoFactor
	// HasPassword is false for a user who joined through single sign-on:
	// no password form for them.
	HasPassword bool
	Connections *SSOConnections // nil: no single sign-on configured
	CSRF        string
}

// Filesystems is the filesystems page.
type Filesystems struct {
	Filesystems []Filesystem
	Regions     []Option
	Form        Form
	CSRF        string
}

// Filesystem is one row of the filesystems table.
type Filesystem struct {
	ID                 string
	Name               string
	Region             string
	RegionDescription  string
	MountPoint         string
	InUse              bool
	CreatedBy          string
	CreatorDeactivated bool
	Created            time.Time
}

// Firewall sections, the tabs of the firewall pages.
const (
	FirewallInbound  = "inbound"
	FirewallRulesets = "rulesets"
	FirewallGlobal   = "global"
)

// RuleRow is one rule of a rules editor as typed, with what is wrong
// with it by rule field (protocol, port_range, source_network,
// description).
type RuleRow struct {
	Protocol      string
	PortRange     string
	SourceNetwork string
	Description   string
	Errors        map[string]string
}

// RulesEditor is an editable list of firewall rules inside a form.
type RulesEditor struct {
	Caption string // names the table for screen readers
	Rows    []RuleRow
	Error   string // a problem with the list as a whole
	Empty   string // what having no rules means here
	// Version is the version of the saved rules the rows were loaded
	// from, sent back with the form so a save cannot overwrite a newer
	// one unseen; "" for a list not saved yet.
	Version string
}

// Invalid reports whether the list or any row has a problem.
func (e RulesEditor) Invalid() bool {
	if e.Error != "" {
		return true
	}
	for _, r := range e.Rows {
		if len(r.Errors) > 0 {
			return true
		}
	}
	return false
}

// RulesPage is the inbound rules page or the global rules page: one
// list of rules and its form.
type RulesPage struct {
	Section string // FirewallInbound or FirewallGlobal
	Action  string
	Editor  RulesEditor
	CSRF    string
}

// Rulesets is the list of firewall rulesets.
type Rulesets struct {
	Rulesets []Ruleset
}

// Ruleset is one row of the rulesets table.
type Ruleset struct {
	ID                string
	Name              string
	Region            string
	RegionDescription string
	Rules             int
	Instances         int
	Created           time.Time
}

// RulesetForm creates a ruleset (ID "") or edits one.
type RulesetForm struct {
	ID                string
	Name              string // as saved, for the heading
	Region            string // as saved; new rulesets choose one
	RegionDescription string
	Instances         int
	Regions           []Option
	Form              Form
	Editor            RulesEditor
	Quota             string // how much of the quota is used, for new ones
	CSRF              string
}

// Members is the account's Members page.
type Members struct {
	Members []Member
	Manage  bool     // the viewer owns the account: role and remove controls
	Roles   []string // the roles a member may have
	CSRF    string

	// Owners only: the invite form, pending invitations, and the link of
	// the invitation just created or resent when mail is not sent.
	InviteForm  Form
	Invitations []PendingInvitation
	NewLink     *InvitationLink
	SSO         *SSOSection // owners, when single sign-on is configured
}

// Member is one row of the members table.
type Member struct {
	UserID string
	Email  string
	Role   string
	Since  time.Time
	You    bool // the signed-in user
}
