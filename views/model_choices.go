package views

// Option is one choice in a select or a list of checkboxes.
type Option struct {
	Value    string
	Label    string
	Note     string // a second line under a checkbox's label
	Region   string // the region the choice lives in, for the launch form's script
	Checked  bool   // checkboxes
	Disabled bool
}

// Choices is a labelled select or list of checkboxes with its hint and
// its error beside it.
type Choices struct {
	Name        string
	Label       string
	Hint        string
	Error       string
	Value       string // the selected option of a select
	Placeholder string // a select's first, empty option
	Options     []Option
	Required    bool
}
