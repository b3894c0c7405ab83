package web

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
	"cloudplane/views"
)

// launchFields are the launch form's single-valued fields, named as the
// API's launch request names them.
var launchFields = []string{"name", "region_name", "instance_type_name", "ssh_key_names", "image", "hostname", "user_data",
	"quantity"}

// LaunchForm shows the form to launch an instance.
func (h *Handlers) LaunchForm(c *fiber.Ctx) error {
	return h.launchPage(c, fiber.StatusOK, &launchForm{}, 0)
}

// launchFormAddKey adds the key of the launch form's key fields (without
// script) and shows the form again with every value kept and the new key
// chosen, or the key's refusal beside its fields.
func (h *Handlers) launchFormAddKey(c *fiber.Ctx, form *launchForm, generate bool) error {
	nk, status, err := h.addLaunchKey(c, generate)
	if err != nil {
		return err
	}
	form.newKey = nk
	if nk.added != "" {
		form.Values["ssh_key_names"] = nk.added
	}
	return h.launchPage(c, status, form, 0)
}

// LaunchInstance launches one instance through the domain's launch, which
// checks the key, the image, the regions of filesystems and rulesets and
// the capacity; what it refuses comes back beside the field at fault,
// with every value as sent. "Add a tag" (without script) only adds a row.
func (h *Handlers) LaunchInstance(c *fiber.Ctx) error {
	form := &launchForm{Form: views.Form{Values: formValues(c, launchFields...)},
		filesystems: formList(c, "file_system_names"), rulesets: formList(c, "firewall_rulesets"), tags: parseTagRows(c)}
	// A textarea sends CRLF line ends; a script's "#!/bin/sh\r" would not run.
	form.Values["user_data"] = strings.ReplaceAll(form.Value("user_data"), "\r\n", "\n")
	if c.FormValue("add_tag") != "" {
		return h.launchPage(c, fiber.StatusOK, form, 1)
	}
	if action := c.FormValue("action"); action == launchActionAddKey || action == launchActionGenerateKey {
		return h.launchFormAddKey(c, form, action == launchActionGenerateKey)
	}
	in := models.LaunchInstancesInput{Name: form.Value("name"), RegionName: form.Value("region_name"),
		InstanceTypeName: form.Value("instance_type_name"), FileSystemNames: form.filesystems,
		Image: imageChoice(form.Value("image"), form.Value("region_name")), Hostname: form.Value("hostname"),
		UserData: form.Value("user_data")}
	if key := form.Value("ssh_key_names"); key != "" {
		in.SSHKeyNames = []string{key}
	}
	quantity, ok := launchQuantity(form.Value("quantity"))
	if !ok {
		form.Errors = map[string]string{"quantity": "must be a whole number, 1 to " + strconv.Itoa(models.MaxLaunchQuantity)}
		return h.launchPage(c, fiber.StatusUnprocessableEntity, form, 0)
	}
	in.Quantity = quantity
	for _, id := range form.rulesets {
		in.FirewallRulesets = append(in.FirewallRulesets, models.RulesetRef{ID: id})
	}
	var tagRows []int
	in.Tags, tagRows = launchTags(form.tags)
	ids, err := h.store.LaunchInstances(c.UserContext(), actor(c), in)
	if err != nil {
		if e, ok := models.AsError(err); ok && e.Code == models.CodeInvalidAddress {
			form.Message = "The instance was not launched: your account's billing address is invalid."
			return h.launchPage(c, fiber.StatusForbidden, form, 0)
		}
		if e, ok := models.AsError(err); ok && e.Code == models.CodeBudgetExceeded {
			form.Message = "The instance was not launched: " + e.Message + ". " + e.Suggestion
			return h.launchPage(c, fiber.StatusForbidden, form, 0)
		}
		status, err := formError(err, &form.Form)
		if err != nil {
			return err
		}
		form.fileTagErrors(tagRows)
		form.Errors = byFormField(form.Errors)
		return h.launchPage(c, status, form, 0)
	}
	launched := views.Capitalize(instanceRef(views.Instance{ID: ids[0], Name: in.Name})) +
		" is launching. You can log in once its status reads Active."
	if len(ids) > 1 {
		launched = strconv.Itoa(len(ids)) + " instances are launching. You can log in once their status reads Active."
	}
	if err := h.flash(c, launched); err != nil {
		return err
	}
	return redirect(c, "/instances")
}

// byFormField files the domain's errors about list entries
// ("file_system_names.1", "firewall_rulesets.0.id") under the list's
// field, the one the form shows; the first entry's problem wins.
func byFormField(errs map[string]string) map[string]string {
	keys := make([]string, 0, len(errs))
	for k := range errs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make(map[string]string, len(errs))
	for _, k := range keys {
		field, _, _ := strings.Cut(k, ".")
		if _, seen := out[field]; !seen {
			out[field] = errs[k]
		}
	}
	return out
}

// launchPage renders the launch form: the instance types with the regions
// where each has capacity (the read behind GET /api/v1/instance-types),
// the account's keys, filesystems and rulesets, the images, and a warning
// when the account cannot launch. form holds what a refused form had
// chosen; moreTags adds blank tag rows.
func (h *Handlers) launchPage(c *fiber.Ctx, status int, lf *launchForm, moreTags int) error {
	ctx, a := c.UserContext(), actor(c)
	keys, err := h.store.SSHKeys(ctx, a) // first: it refuses support staff
	if err != nil {
		return err
	}
	account, err := h.store.Account(ctx, a.AccountID)
	if err != nil {
		return err
	}
	form, filesystems, rulesets := lf.Form, lf.filesystems, lf.rulesets
	fss, err := h.store.Filesystems(ctx, a)
	if err != nil {
		return err
	}
	rss, err := h.store.FirewallRulesets(ctx, a)
	if err != nil {
		return err
	}
	types, err := h.store.AvailableInstanceTypes(ctx)
	if err != nil {
		return err
	}
	v := views.Launch{Form: form, CSRF: csrfToken(c),
		Region: views.Field{Name: "region_name", Label: "Region", Placeholder: "Choose a region",
			Value: form.Value("region_name"), Error: form.Error("region_name"), Options: regionOptions(""),
			Hint: "Only regions with capacity for the chosen type can be launched in."},
		SSHKey: launchKeyField(keys, form), NewKey: lf.newKey.form, AddedKey: lf.newKey.added,
		Generated: lf.newKey.generated, BootTime: h.store.InstanceBootTime(),
		Filesystems: views.Field{Name: "file_system_names", Label: "Filesystems", Error: form.Error("file_system_names"),
			Hint: "Optional. Each is mounted at /lambda/nfs/<name>; it must be in the launch region."},
		Rulesets: views.Field{Name: "firewall_rulesets", Label: "Firewall rulesets", Error: form.Error("firewall_rulesets"),
			Hint: "Optional. Their rules apply on top of the global rules; each must be in the launch region."},
		Image: views.Field{Name: "image", Label: "Image", Value: form.Value("image"), Error: form.Error("image"),
			Placeholder: "Default: the newest " + models.DefaultImageFamily + " (Lambda Stack)", Options: imageOptions(),
			Hint: "Optional. A family's newest version, or one version; each must be offered in the launch region."},
		Tags: shownTagRows(lf.tags, moreTags), TagsError: lf.tagsError, MaxTags: models.MaxInstanceTags,
		BillingInvalid: !account.BillingAddressValid,
		Price:          launchPrice(form.Value("instance_type_name"), form.Value("quantity")), MaxQuantity: models.MaxLaunchQuantity,
	}
	for _, t := range types {
		lt := views.InstanceType{Name: t.Name, Description: t.Description, Specs: specsText(t.Specs),
			Price: strings.Replace(priceText(t.PriceCentsPerHour), " / hour", "/hr", 1), Checked: t.Name == form.Value("instance_type_name")}
		for _, r := range t.Regions {
			lt.Regions = append(lt.Regions, r.Name)
		}
		v.Types = append(v.Types, lt)
	}
	for _, f := range fss {
		v.Filesystems.Options = append(v.Filesystems.Options, views.Option{Value: f.Name, Label: f.Name, Region: f.RegionName,
			Note: f.RegionName + " · mounted at " + f.MountPoint(), Checked: slices.Contains(filesystems, f.Name)})
	}
	for _, r := range rss {
		v.Rulesets.Options = append(v.Rulesets.Options, views.Option{Value: r.ID, Label: r.Name, Region: r.RegionName,
			Note: r.RegionName + " · " + views.Count(len(r.Rules), "rule", "rules"), Checked: slices.Contains(rulesets, r.ID)})
	}
	return h.page(c, status, "Launch an instance", views.NavInstances, views.LaunchPage(v))
}

func specsText(s models.InstanceTypeSpecs) string {
	return fmt.Sprintf("%s · %s RAM · %s storage", views.Count(s.VCPUs, "vCPU", "vCPUs"), gibText(s.MemoryGiB), gibText(s.StorageGiB))
}

// gibText writes a size in GiB, in TiB from 1,000 GiB on.
func gibText(gib int) string {
	if gib < 1000 {
		return fmt.Sprintf("%d GiB", gib)
	}
	return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(gib)/1024), ".0") + " TiB"
}
