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
	Nav   string // NavOverview, NavAPIKeys, NavAccount or ""
	User  *User  // nil when signed out
	CSRF  string
	Flash *Flash
}

// Navigation items.
const (
	NavOverview = "overview"
	NavAPIKeys  = "api-keys"
	NavAccount  = "account"
)

// User is the signed-in user as the header shows them.
type User struct {
	Email   string
	Support bool
}

// Flash kinds; they are also the CSS modifiers of flashes and alerts.
const (
	Success = "success"
	Info    = "info"
	Warning = "warning"
	Danger  = "danger"
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

// Field is one labelled input.
type Field struct {
	Name         string
	Label        string
	Type         string // text when empty
	Value        string
	Error        string
	Hint         string
	Autocomplete string
	MaxLength    int
	Required     bool
	Autofocus    bool
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
}

// ErrorPage explains a failed request.
type ErrorPage struct {
	Status     int
	Title      string
	Message    string
	Suggestion string
	RequestID  string
}

// SignIn is the sign-in page.
type SignIn struct {
	Form   Form
	Next   string
	Notice *Flash
	CSRF   string
}

// Setup is the first-run page where the first owner signs up.
type Setup struct {
	Action string
	Form   Form
	CSRF   string
}

// Overview is an owner's dashboard home.
type Overview struct {
	Alerts    []Alert
	Resources []ResourceCount
	Events    []Event
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
}

// APIKey is one row of the keys table.
type APIKey struct {
	ID       string
	Name     string
	Prefix   string
	Created  time.Time
	LastUsed *time.Time
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
	CSRF          string
}
