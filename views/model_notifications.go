package views

// Notifications is the account page's section where a user chooses the
// emails they get.
type Notifications struct {
	Choices []Option // one checkbox per topic offered to the user
	Form    Form     // the refusal of a post, on "notifications"
	CSRF    string
}
