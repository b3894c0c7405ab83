package web

import (
	"strconv"

	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
	"cloudplane/views"
)

const rulesetEmpty = "No rules: this ruleset lets nothing in. Add a rule to let traffic in."

// Rulesets lists the account's firewall rulesets.
func (h *Handlers) Rulesets(c *fiber.Ctx) error {
	return h.rulesetsPage(c, fiber.StatusOK, nil)
}

func (h *Handlers) rulesetsPage(c *fiber.Ctx, status int, notice *views.Flash) error {
	list, err := h.store.FirewallRulesets(c.UserContext(), actor(c))
	if err != nil {
		return err
	}
	var v views.Rulesets
	for _, r := range list {
		reg := r.Region()
		v.Rulesets = append(v.Rulesets, views.Ruleset{ID: r.ID, Name: r.Name, Region: reg.Name, RegionDescription: reg.Description,
			Rules: len(r.Rules), Instances: len(r.InstanceIDs), Created: r.CreatedAt})
	}
	return h.pageWithNotice(c, status, "Firewall rulesets", views.NavFirewall, notice, views.RulesetsPage(v))
}

// NewRuleset is the form for a new ruleset, starting with one blank rule.
func (h *Handlers) NewRuleset(c *fiber.Ctx) error {
	f := &rulesForm{rows: []views.RuleRow{{Protocol: models.ProtocolTCP}}}
	return h.newRulesetPage(c, fiber.StatusOK, views.Form{}, f)
}

// CreateRuleset creates a ruleset from the form and returns to the list,
// or shows the form again: with a row added or removed (no script), or
// with the domain's reasons beside the fields and rows at fault.
func (h *Handlers) CreateRuleset(c *fiber.Ctx) error {
	form := views.Form{Values: formValues(c, "name", "region")}
	f := parseRulesForm(c)
	if f.edited {
		return h.newRulesetPage(c, fiber.StatusOK, form, f)
	}
	in := models.CreateFirewallRulesetInput{Name: form.Value("name"), Region: form.Value("region"), Rules: f.rules()}
	err := f.check(in.Validate)
	var r *models.FirewallRulesetView
	if err == nil {
		r, err = h.store.CreateFirewallRuleset(c.UserContext(), actor(c), in)
	}
	if err != nil {
		status, err := rulesFormError(err, &form, f, "rules")
		if err != nil {
			return err
		}
		return h.newRulesetPage(c, status, form, f)
	}
	if err := h.flash(c, "Ruleset “"+r.Name+"” created. Choose it when you launch instances in "+r.RegionName+"."); err != nil {
		return err
	}
	return redirect(c, "/firewall/rulesets")
}

// newRulesetPage shows the form with how much of the quota is used; the
// overview's read is also what refuses support staff.
func (h *Handlers) newRulesetPage(c *fiber.Ctx, status int, form views.Form, f *rulesForm) error {
	o, err := h.store.AccountOverview(c.UserContext(), actor(c))
	if err != nil {
		return err
	}
	v := views.RulesetForm{Regions: regionOptions("(no firewall)"), Form: form, CSRF: csrfToken(c),
		Editor: f.editor("Rules of the new ruleset", rulesetEmpty),
		Quota:  strconv.FormatInt(o.Rulesets, 10) + " of " + strconv.Itoa(o.Account.RulesetQuota) + " rulesets used"}
	return h.page(c, status, "New firewall ruleset", views.NavFirewall, views.RulesetFormPage(v))
}

// Ruleset shows a ruleset of the account in the form that edits it.
func (h *Handlers) Ruleset(c *fiber.Ctx) error {
	r, err := h.store.FirewallRuleset(c.UserContext(), actor(c), c.Params("id"))
	if err != nil {
		return err
	}
	form := views.Form{Values: map[string]string{"name": r.Name}}
	return h.rulesetPage(c, fiber.StatusOK, r, form, &rulesForm{rows: ruleRows(r.Rules), version: versionText(r.Version)})
}

// UpdateRuleset saves a ruleset's name and rules from the form, or shows
// the form again like CreateRuleset.
func (h *Handlers) UpdateRuleset(c *fiber.Ctx) error {
	r, err := h.store.FirewallRuleset(c.UserContext(), actor(c), c.Params("id"))
	if err != nil {
		return err
	}
	form := views.Form{Values: formValues(c, "name")}
	f := parseRulesForm(c)
	if f.edited {
		return h.rulesetPage(c, fiber.StatusOK, r, form, f)
	}
	name, rules := form.Value("name"), f.rules()
	in := models.UpdateFirewallRulesetInput{Name: &name, Rules: &rules, IfMatch: f.ifMatch()}
	saved := r
	if err = f.check(in.Validate); err == nil {
		saved, err = h.store.UpdateFirewallRuleset(c.UserContext(), actor(c), r.ID, in)
	}
	if savedMeanwhile(err) {
		// r was read after the other save, so its version is the one to
		// overwrite knowingly.
		f.showSavedMeanwhile(r.Version)
		return h.rulesetPage(c, fiber.StatusConflict, r, form, f)
	}
	if err != nil {
		status, err := rulesFormError(err, &form, f, "rules")
		if err != nil {
			return err
		}
		return h.rulesetPage(c, status, r, form, f)
	}
	if err := h.flash(c, "Ruleset “"+saved.Name+"” saved. Instances that use it get the new rules now."); err != nil {
		return err
	}
	return redirect(c, "/firewall/rulesets")
}

func (h *Handlers) rulesetPage(c *fiber.Ctx, status int, r *models.FirewallRulesetView, form views.Form, f *rulesForm) error {
	reg := r.Region()
	v := views.RulesetForm{ID: r.ID, Name: r.Name, Region: reg.Name, RegionDescription: reg.Description,
		Instances: len(r.InstanceIDs), Form: form, CSRF: csrfToken(c), Editor: f.editor("Rules of "+r.Name, rulesetEmpty)}
	return h.page(c, status, r.Name, views.NavFirewall, views.RulesetFormPage(v))
}

// ConfirmDeleteRuleset asks before deleting a ruleset.
func (h *Handlers) ConfirmDeleteRuleset(c *fiber.Ctx) error {
	r, err := h.store.FirewallRuleset(c.UserContext(), actor(c), c.Params("id"))
	if err != nil {
		return err
	}
	text := "This cannot be undone."
	if len(r.Rules) > 0 {
		text = "It is deleted with its " + views.Count(len(r.Rules), "rule", "rules") + ". " + text
	}
	switch n := len(r.InstanceIDs); {
	case n == 1:
		text = "It is attached to an instance: deleting is refused while that instance is running. " + text
	case n > 1:
		text = "It is attached to " + strconv.Itoa(n) + " instances: deleting is refused while any of them is running. " + text
	}
	v := views.Confirm{Title: "Delete “" + r.Name + "”?", Text: text, Action: "/firewall/rulesets/" + r.ID + "/delete?version=" + versionText(r.Version),
		Submit: "Delete ruleset", CancelHref: "/firewall/rulesets"}
	return h.confirm(c, "Delete firewall ruleset", views.NavFirewall, v, false)
}

// DeleteRuleset deletes a ruleset of the account and returns to the list;
// a refusal (it is attached to a running instance) is shown above it. The
// confirmation carries the version it showed, so a ruleset someone edited
// after it was asked about is not deleted unseen.
func (h *Handlers) DeleteRuleset(c *fiber.Ctx) error {
	r, err := h.store.DeleteFirewallRuleset(c.UserContext(), actor(c), c.Params("id"), versionPrecondition(c.Query("version")))
	if savedMeanwhile(err) {
		return h.rulesetsPage(c, fiber.StatusPreconditionFailed, &views.Flash{Kind: views.Danger,
			Text: "The ruleset was changed after you asked to delete it, so it was not deleted. Look at it again, then delete it if you still want to."})
	}
	if notice := refusal(err); notice != nil {
		return h.rulesetsPage(c, fiber.StatusUnprocessableEntity, notice)
	} else if err != nil {
		return err
	}
	if err := h.flash(c, "Ruleset “"+r.Name+"” deleted."); err != nil {
		return err
	}
	return redirect(c, "/firewall/rulesets")
}
