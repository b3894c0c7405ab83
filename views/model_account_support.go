package views

// QuotaUsage is one quota of an account beside what the account uses of
// it, on support's account page.
type QuotaUsage struct {
	Name  string // the form field
	Label string // "Filesystem quota"
	Noun  string // "filesystems"
	Used  int64
	Quota int
}

// ChecklistStep is one step of the overview's first-run checklist.
type ChecklistStep struct {
	Label string
	Text  string
	Href  string
	Done  bool
}
