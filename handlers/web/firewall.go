package web

import (
	"context"

	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
	"cloudplane/views"
)

// rulesList is one of the account's two lists of rules that are not
// rulesets of their own: the inbound rules and the global rules.
type rulesList struct {
	section string // its firewall tab
	path    string
	title   string
	field   string // the domain input's name for the rules, which keys their errors
	empty   string // what an empty list means
	saved   string // the flash after saving
	load    func(*models.Store, context.Context, models.Actor) (models.RuleList, error)
}

var (
	inboundList = rulesList{section: views.FirewallInbound, path: "/firewall", title: "Inbound firewall rules", field: "data",
		empty: "No inbound rules: nothing from the internet can reach your instances. Add a rule to let traffic in.",
		saved: "Inbound rules saved. They apply to your instances now.", load: (*models.Store).InboundFirewallRules}
	globalList = rulesList{section: views.FirewallGlobal, path: "/firewall/global", title: "Global firewall rules", field: "rules",
		empty: "No global rules. Instances get only the rules of the rulesets they were launched with.",
		saved: "Global rules saved. They apply to your instances in every region now.", load: (*models.Store).GlobalFirewallRules}
)

// InboundRules shows the account's inbound rules in an editor.
func (h *Handlers) InboundRules(c *fiber.Ctx) error { return h.showRules(c, inboundList) }

// GlobalRules shows the account's global ruleset in an editor.
func (h *Handlers) GlobalRules(c *fiber.Ctx) error { return h.showRules(c, globalList) }

// SaveInboundRules replaces the account's inbound rules with the form's
// rows (blank ones ignored), or adds or removes a row without saving.
func (h *Handlers) SaveInboundRules(c *fiber.Ctx) error {
	f, done, err := h.editRules(c, inboundList)
	if done {
		return err
	}
	in := models.ReplaceInboundRulesInput{Rules: f.rules(), IfMatch: f.ifMatch()}
	if err = f.check(in.Validate); err == nil {
		_, err = h.store.ReplaceInboundFirewallRules(c.UserContext(), actor(c), in)
	}
	return h.rulesSaved(c, inboundList, f, err)
}

// SaveGlobalRules replaces the global ruleset's rules with the form's
// rows, or adds or removes a row without saving.
func (h *Handlers) SaveGlobalRules(c *fiber.Ctx) error {
	f, done, err := h.editRules(c, globalList)
	if done {
		return err
	}
	rules := f.rules()
	in := models.UpdateGlobalRulesetInput{Rules: &rules, IfMatch: f.ifMatch()}
	if err = f.check(in.Validate); err == nil {
		_, err = h.store.UpdateGlobalFirewallRuleset(c.UserContext(), actor(c), in)
	}
	return h.rulesSaved(c, globalList, f, err)
}

func (h *Handlers) showRules(c *fiber.Ctx, l rulesList) error {
	saved, err := l.load(h.store, c.UserContext(), actor(c))
	if err != nil {
		return err
	}
	return h.rulesPage(c, fiber.StatusOK, l, &rulesForm{rows: ruleRows(saved.Rules), version: versionText(saved.Version)})
}

// editRules reads the submitted rows. When the user added or removed a
// row it has answered with the form again (done), after the domain
// confirmed they may see the list.
func (h *Handlers) editRules(c *fiber.Ctx, l rulesList) (f *rulesForm, done bool, err error) {
	f = parseRulesForm(c)
	if !f.edited {
		return f, false, nil
	}
	if _, err := l.load(h.store, c.UserContext(), actor(c)); err != nil {
		return nil, true, err
	}
	return nil, true, h.rulesPage(c, fiber.StatusOK, l, f)
}

// rulesSaved answers a save: back to the page with a flash, or the form
// again with the problems beside the rows at fault.
func (h *Handlers) rulesSaved(c *fiber.Ctx, l rulesList, f *rulesForm, err error) error {
	if savedMeanwhile(err) {
		saved, err := l.load(h.store, c.UserContext(), actor(c))
		if err != nil {
			return err
		}
		f.showSavedMeanwhile(saved.Version)
		return h.rulesPage(c, fiber.StatusConflict, l, f)
	}
	if err != nil {
		var form views.Form
		status, err := rulesFormError(err, &form, f, l.field)
		if err != nil {
			return err
		}
		if form.Message != "" {
			f.err = form.Message // the page has no other place for it
		}
		return h.rulesPage(c, status, l, f)
	}
	if err := h.flash(c, l.saved); err != nil {
		return err
	}
	return redirect(c, l.path)
}

func (h *Handlers) rulesPage(c *fiber.Ctx, status int, l rulesList, f *rulesForm) error {
	v := views.RulesPage{Section: l.section, Action: l.path, Editor: f.editor(l.title, l.empty), CSRF: csrfToken(c)}
	return h.page(c, status, l.title, views.NavFirewall, views.FirewallRulesPage(v))
}
