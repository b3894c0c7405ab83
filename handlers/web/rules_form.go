package web

import (
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
	"cloudplane/views"
)

// The rules editor's form names a rule's fields rules.<row>.<field>, with
// the domain's names for the fields, on every page that edits rules.
const (
	rulesPrefix = "rules."
	// maxRuleRow bounds the row numbers read from a form; the domain
	// refuses long lists anyway, with a message.
	maxRuleRow = 10 * models.MaxFirewallRules
)

// rulesForm is a rules editor as submitted: its rows as typed, in row
// order, and whether the user asked to add or remove a row (buttons
// that submit the form when script is off) instead of saving.
type rulesForm struct {
	rows   []views.RuleRow
	edited bool
	err    string // a problem with the list as a whole
	// version is the version of the rules the form was loaded with (a
	// hidden field), so that a save does not overwrite someone else's.
	version string
}

// parseRulesForm reads the rows of a rules editor and applies "Add rule"
// or "Remove". Values are copied: Fiber reuses its buffers.
func parseRulesForm(c *fiber.Ctx) *rulesForm {
	byRow := map[int]*views.RuleRow{}
	c.Request().PostArgs().VisitAll(func(k, v []byte) {
		row, field, ok := ruleKey(string(k))
		if !ok {
			return
		}
		r := byRow[row]
		if r == nil {
			r = &views.RuleRow{}
			byRow[row] = r
		}
		setRuleField(r, field, strings.TrimSpace(string(v)))
	})
	order := make([]int, 0, len(byRow))
	for row := range byRow {
		order = append(order, row)
	}
	slices.Sort(order)

	f := &rulesForm{version: strings.Clone(c.FormValue("version"))}
	remove, err := strconv.Atoi(c.FormValue("remove_rule"))
	if err != nil {
		remove = -1
	}
	for _, row := range order {
		if row == remove {
			f.edited = true
			continue
		}
		f.rows = append(f.rows, *byRow[row])
	}
	if c.FormValue("add_rule") != "" {
		f.rows = append(f.rows, views.RuleRow{Protocol: models.ProtocolTCP})
		f.edited = true
	}
	if c.FormValue("my_ip") != "" {
		f.useMyIP(hostNetwork(c.IP()))
	}
	return f
}

// useMyIP fills the source of the last row when it has none (the row just
// added), or else adds a row from network: the "My IP" button, answered
// by the server so that it works without script.
func (f *rulesForm) useMyIP(network string) {
	f.edited = true
	if n := len(f.rows); n > 0 && f.rows[n-1].SourceNetwork == "" {
		f.rows[n-1].SourceNetwork = network
		return
	}
	f.rows = append(f.rows, views.RuleRow{Protocol: models.ProtocolTCP, SourceNetwork: network})
}

// hostNetwork is the requester's address as a network of that one host:
// a /32, or a /128 for IPv6. The address is Fiber's c.IP(), which honours
// the trusted proxies' header and only theirs. An address that cannot be
// read is returned as it is, for the domain to refuse beside the field.
func hostNetwork(ip string) string {
	a, err := netip.ParseAddr(ip)
	if err != nil {
		return ip
	}
	a = a.Unmap()
	return netip.PrefixFrom(a, a.BitLen()).String()
}

// ruleKey splits a form key "rules.<row>.<field>".
func ruleKey(key string) (row int, field string, ok bool) {
	rest, ok := strings.CutPrefix(key, rulesPrefix)
	if !ok {
		return 0, "", false
	}
	n, field, ok := strings.Cut(rest, ".")
	row, err := strconv.Atoi(n)
	if !ok || err != nil || row < 0 || row >= maxRuleRow {
		return 0, "", false
	}
	return row, field, true
}

func setRuleField(r *views.RuleRow, field, v string) {
	switch field {
	case "protocol":
		r.Protocol = v
	case "port_range":
		r.PortRange = v
	case "source_network":
		r.SourceNetwork = v
	case "description":
		r.Description = v
	}
}

// rules drops the blank rows, so that row i is the domain's rule i, and
// reads the others into rules. A port range that cannot be read is
// marked on its row; check refuses the form then.
func (f *rulesForm) rules() []models.FirewallRule {
	rules := []models.FirewallRule{} // empty, not nil: no rules is a choice
	kept := f.rows[:0]
	for _, r := range f.rows {
		if r.PortRange == "" && r.SourceNetwork == "" && r.Description == "" {
			continue
		}
		ports, ok := parsePortRange(r.PortRange)
		if !ok {
			r.Errors = map[string]string{"port_range": "must be one port such as 22, or a range such as 8000-8080"}
		}
		kept = append(kept, r)
		rules = append(rules, models.FirewallRule{Protocol: r.Protocol, PortRange: ports,
			SourceNetwork: r.SourceNetwork, Description: r.Description})
	}
	f.rows = kept
	return rules
}

// parsePortRange reads a port range as people type it: "22", "8000-8080"
// (spaces and an en dash are fine) or nothing. Whether the ports are
// allowed is the domain's to say.
func parsePortRange(s string) ([]int, bool) {
	if s == "" {
		return nil, true
	}
	lo, hi, isRange := strings.Cut(strings.ReplaceAll(s, "–", "-"), "-")
	first, err := strconv.Atoi(strings.TrimSpace(lo))
	if err != nil {
		return nil, false
	}
	if !isRange {
		return []int{first, first}, true
	}
	last, err := strconv.Atoi(strings.TrimSpace(hi))
	if err != nil {
		return nil, false
	}
	return []int{first, last}, true
}

// check returns nil when every row could be read, for the caller to call
// the domain operation. Otherwise nothing is saved: it refuses the form
// with what validate (the domain input's own Validate) finds besides.
func (f *rulesForm) check(validate func() error) error {
	for _, r := range f.rows {
		if len(r.Errors) > 0 {
			if e, ok := models.AsError(validate()); ok {
				return e
			}
			return &models.Error{Code: models.CodeInvalidParameters}
		}
	}
	return nil
}

// rulesFormError is formError for a form with a rules editor: the rows'
// problems go beside the rows, a problem with the list or the form as a
// whole above the rows, the rest beside the form's other fields.
func rulesFormError(err error, form *views.Form, f *rulesForm, list string) (int, error) {
	status, err := formError(err, form)
	if err != nil {
		return 0, err
	}
	f.showErrors(form.Errors, list)
	return status, nil
}

// showErrors puts the messages of a refused save beside the rows at
// fault. The domain keys a rule's problems "<list>.<index>.<field>",
// where list is its input's name for the rules: "data" for the inbound
// rules, "rules" for rulesets. This is the one place that knows it.
func (f *rulesForm) showErrors(fields map[string]string, list string) {
	for key, msg := range fields {
		if key == list {
			f.err = strings.ToUpper(msg[:1]) + msg[1:] + "."
			continue
		}
		rest, ok := strings.CutPrefix(key, list+".")
		if !ok {
			continue
		}
		n, field, _ := strings.Cut(rest, ".")
		i, err := strconv.Atoi(n)
		if err != nil || i < 0 || i >= len(f.rows) {
			continue
		}
		r := &f.rows[i]
		if r.Errors == nil {
			r.Errors = map[string]string{}
		}
		if _, seen := r.Errors[field]; !seen {
			r.Errors[field] = msg
		}
	}
}

// editor is the form's rows ready to show again.
func (f *rulesForm) editor(caption, empty string) views.RulesEditor {
	return views.RulesEditor{Caption: caption, Rows: f.rows, Error: f.err, Empty: empty, Version: f.version}
}

// ifMatch is the save's precondition: the rules are still at the version
// the form was loaded with.
func (f *rulesForm) ifMatch() models.Precondition { return versionPrecondition(f.version) }

// versionPrecondition is the precondition of a form that carries the
// version it was shown: the object is still at it. A form without one (an
// old page) asks nothing; one that is not a version matches nothing.
func versionPrecondition(version string) models.Precondition {
	if version == "" {
		return models.Precondition{}
	}
	v, ok := models.ParseVersion(version)
	if !ok {
		return models.IfVersion()
	}
	return models.IfVersion(v)
}

// savedMeanwhile reports whether err refused a save because someone else
// saved the rules after the form was loaded.
func savedMeanwhile(err error) bool {
	return models.ErrorCode(err) == models.CodePreconditionFailed
}

// showSavedMeanwhile brings the rows back as typed after savedMeanwhile,
// carrying the version saved now, so that saving again replaces the other
// change knowingly rather than by accident.
func (f *rulesForm) showSavedMeanwhile(current int64) {
	f.version = versionText(current)
	f.err = "Someone else saved these rules after you opened this page, so yours were not saved. " +
		"Your edits are kept below: open the page in another tab to see what was saved, then save again to replace it with yours."
}

// versionText is a version as the form's hidden field carries it.
func versionText(v int64) string { return strconv.FormatInt(v, 10) }

// ruleRows shows saved rules in an editor.
func ruleRows(rules []models.FirewallRule) []views.RuleRow {
	rows := make([]views.RuleRow, len(rules))
	for i, r := range rules {
		rows[i] = views.RuleRow{Protocol: r.Protocol, PortRange: portRangeText(r.PortRange),
			SourceNetwork: r.SourceNetwork, Description: r.Description}
	}
	return rows
}

func portRangeText(ports []int) string {
	switch {
	case len(ports) != 2:
		return ""
	case ports[0] == ports[1]:
		return strconv.Itoa(ports[0])
	}
	return strconv.Itoa(ports[0]) + "-" + strconv.Itoa(ports[1])
}
