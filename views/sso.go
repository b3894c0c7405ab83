package views

// SSOButton is one identity provider offered on the sign-in page.
type SSOButton struct {
	ID   string
	Name string
}

// SSOSection is the owners' single sign-on section of the Members page:
// the domains linked to the account and the form to link another.
type SSOSection struct {
	Domains   []SSODomain
	Providers []Option // the configured providers, by id
	Roles     []string
	Form      Form
	CSRF      string
}

// SSODomain is one linked domain.
type SSODomain struct {
	Domain       string
	ProviderName string
	DefaultRole  string
	LinkedBy     string
}

// SSOError is the page a failed single sign-on callback shows.
type SSOError struct {
	Title      string
	Message    string
	Suggestion string
}
