package views

// Option is one choice of a select, a radio group or a checkbox list.
type Option struct {
	Value    string
	Label    string
	Note     string // a second line under the label of a radio button or checkbox
	Region   string // the region the choice lives in, for the launch form's script
	Checked  bool   // a checkbox's; a select or radio group chooses by the field's Value
	Disabled bool
	Group    string   // a grouped select's optgroup label; options of a group are adjacent
	Regions  []string // the regions that offer a select's option, for the launch form's script
}
