package web

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
	"cloudplane/views"
)

// Instances lists the account's instances that are not terminated. While
// one is booting or terminating the table asks for itself every two
// seconds, naming itself in HX-Target, and gets the table alone.
func (h *Handlers) Instances(c *fiber.Ctx) error {
	ds, err := h.store.Instances(c.UserContext(), actor(c))
	if err != nil {
		return err
	}
	rows := make([]views.Instance, len(ds))
	changing := false
	now := h.store.Now()
	for i := range ds {
		rows[i] = viewInstance(&ds[i], nil)
		withSpend(&rows[i], &ds[i].Instance, now)
		changing = changing || rows[i].Transitional()
	}
	if c.Get("HX-Target") == views.InstancesTableID {
		return renderAlone(c, views.InstancesTable(rows))
	}
	return h.changingPage(c, "Instances", changing, views.InstancesPage(views.Instances{Rows: rows}))
}

// noScriptRefresh is how often, in seconds, a browser without script
// reloads a page while an instance on it boots or terminates; with script
// htmx asks every two seconds for the part that changes.
const noScriptRefresh = 3

// changingPage renders an instances page that, while changing, reloads
// itself in a browser without script, and stops once all has settled.
func (h *Handlers) changingPage(c *fiber.Ctx, title string, changing bool, content templ.Component) error {
	m, err := h.meta(c, title, views.NavInstances)
	if err != nil {
		return err
	}
	if changing {
		m.Refresh = noScriptRefresh
	}
	return render(c, fiber.StatusOK, m, content)
}

// Instance shows one instance of the account, terminated or not; another
// account's is not found. It polls itself like the table.
func (h *Handlers) Instance(c *fiber.Ctx) error {
	ctx, a := c.UserContext(), actor(c)
	d, err := h.store.Instance(ctx, a, c.Params("id"))
	if err != nil {
		return err
	}
	rulesets, err := h.store.FirewallRulesets(ctx, a)
	if err != nil {
		return err
	}
	names := make(map[string]string, len(rulesets))
	for _, r := range rulesets {
		names[r.ID] = r.Name
	}
	v := viewInstance(d, names)
	v.BootTime = h.store.InstanceBootTime()
	withSpend(&v, &d.Instance, h.store.Now())
	if c.Get("HX-Target") == views.InstanceDetailID {
		return renderAlone(c, views.InstanceDetail(v))
	}
	return h.changingPage(c, v.Title(), v.Transitional(), views.InstancePage(v))
}

// viewInstance shows an instance; rulesets names its rulesets by id.
func viewInstance(d *models.InstanceDetail, rulesets map[string]string) views.Instance {
	region, _ := models.LookupRegion(d.RegionName)
	typ, _ := models.LookupInstanceType(d.InstanceTypeName)
	actions := d.Actions()
	v := views.Instance{
		ID: d.ID, Name: d.Name, Status: d.Status, IP: d.IP, PrivateIP: d.PrivateIP, Hostname: d.Hostname,
		Region: region.Name, RegionDescription: region.Description,
		Type: typ.Name, TypeDescription: typ.Description, Price: priceText(int(cmp.Or(d.PriceCentsPerHour, int64(typ.PriceCentsPerHour)))),
		Launched: d.CreatedAt, SSHKeys: d.SSHKeyNames,
		CanRestart: actions.Restart.Available, CanTerminate: actions.Terminate.Available,
	}
	if len(d.SSHKeyNames) == 1 {
		v.SSHKeyFile = keyFileName(d.SSHKeyNames[0])
	}
	if d.ImageID != nil {
		v.Image = *d.ImageID // an image the catalogue no longer lists
		if img, ok := models.LookupImage(*d.ImageID); ok {
			v.Image, v.ImageVersion, v.ImageDescription = img.Name, img.Version, img.Description
		}
	}
	for _, m := range d.Mounts {
		v.Mounts = append(v.Mounts, views.Mount{Name: m.FilesystemName, MountPoint: m.MountPoint})
	}
	for _, id := range d.RulesetIDs {
		if name, ok := rulesets[id]; ok {
			id = name
		}
		v.Rulesets = append(v.Rulesets, id)
	}
	return v
}

// withSpend adds how long the instance has run and what it has cost,
// read at now (models.Instance.SpendSoFar).
func withSpend(v *views.Instance, inst *models.Instance, now time.Time) {
	s := inst.SpendSoFar(now)
	v.Uptime, v.SpendCents = s.Uptime, s.CostCents
}

func priceText(centsPerHour int) string {
	return fmt.Sprintf("$%d.%02d / hour", centsPerHour/100, centsPerHour%100)
}

// instanceAction is terminate or restart as the pages offer it: the
// domain operation and what is said before and after.
type instanceAction struct {
	path    string // after /instances/:id/
	title   string
	text    string
	submit  string
	done    string // the flash after "Instance “name”"
	operate func(context.Context, models.Actor, models.InstanceIDsInput) ([]models.InstanceDetail, error)
}

func (h *Handlers) terminate() instanceAction {
	return instanceAction{path: "terminate", title: "Terminate", submit: "Terminate instance",
		text: "It shuts down and its own disk is erased; filesystems mounted on it keep their data. This cannot be undone.",
		done: " is terminating. It leaves the list once it has shut down.", operate: h.store.TerminateInstances}
}

func (h *Handlers) restart() instanceAction {
	return instanceAction{path: "restart", title: "Restart", submit: "Restart instance",
		text: "It reboots: running programs stop and SSH sessions drop. It reads Booting until it is back.",
		done: " is restarting. It is back when its status reads Active.", operate: h.store.RestartInstances}
}

// ConfirmTerminateInstance asks before terminating an instance.
func (h *Handlers) ConfirmTerminateInstance(c *fiber.Ctx) error {
	return h.confirmInstanceAction(c, h.terminate())
}

// TerminateInstance terminates an instance of the account and returns to
// the list, where it reads terminating until it is gone.
func (h *Handlers) TerminateInstance(c *fiber.Ctx) error { return h.instanceAction(c, h.terminate()) }

// ConfirmRestartInstance asks before restarting an instance.
func (h *Handlers) ConfirmRestartInstance(c *fiber.Ctx) error {
	return h.confirmInstanceAction(c, h.restart())
}

// RestartInstance restarts an active instance of the account; the domain
// refuses others (409).
func (h *Handlers) RestartInstance(c *fiber.Ctx) error { return h.instanceAction(c, h.restart()) }

func (h *Handlers) confirmInstanceAction(c *fiber.Ctx, act instanceAction) error {
	d, err := h.store.Instance(c.UserContext(), actor(c), c.Params("id"))
	if err != nil {
		return err
	}
	v := viewInstance(d, nil)
	return h.confirm(c, act.title+" instance", views.NavInstances, views.Confirm{
		Title:      act.title + " " + instanceRef(v) + "?",
		Text:       act.text,
		Action:     "/instances/" + v.ID + "/" + act.path,
		Submit:     act.submit,
		CancelHref: "/instances",
	}, false)
}

func (h *Handlers) instanceAction(c *fiber.Ctx, act instanceAction) error {
	ds, err := act.operate(c.UserContext(), actor(c), models.InstanceIDsInput{InstanceIDs: []string{c.Params("id")}})
	if err != nil {
		return err
	}
	if err := h.flash(c, views.Capitalize(instanceRef(viewInstance(&ds[0], nil)))+act.done); err != nil {
		return err
	}
	return redirect(c, "/instances")
}

// instanceRef names an instance in a sentence: by its name, quoted, or
// by its short id.
func instanceRef(v views.Instance) string {
	if v.Name != "" {
		return "instance “" + v.Name + "”"
	}
	return "instance " + views.ShortID(v.ID)
}
