package api

import (
	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
)

type instanceJSON struct {
	ID               string                 `json:"id"`
	Name             string                 `json:"name"`
	IP               string                 `json:"ip"`
	PrivateIP        string                 `json:"private_ip"`
	Status           string                 `json:"status"`
	SSHKeyNames      []string               `json:"ssh_key_names"`
	FileSystemNames  []string               `json:"file_system_names"`
	FileSystemMounts []mountJSON            `json:"file_system_mounts,omitempty"`
	Region           models.Region          `json:"region"`
	InstanceType     models.InstanceType    `json:"instance_type"`
	Hostname         string                 `json:"hostname"`
	Actions          models.InstanceActions `json:"actions"`
	Tags             []models.InstanceTag   `json:"tags"`
	FirewallRulesets []models.RulesetRef    `json:"firewall_rulesets"`
}

type mountJSON struct {
	MountPoint   string `json:"mount_point"`
	FileSystemID string `json:"file_system_id"`
}

func newInstanceJSON(d *models.InstanceDetail) instanceJSON {
	region, _ := models.LookupRegion(d.RegionName)
	typ, _ := models.LookupInstanceType(d.InstanceTypeName)
	out := instanceJSON{
		ID: d.ID, Name: d.Name, IP: d.IP, PrivateIP: d.PrivateIP, Status: d.Status,
		SSHKeyNames: d.SSHKeyNames, FileSystemNames: make([]string, len(d.Mounts)),
		Region: region, InstanceType: typ, Hostname: d.Hostname, Actions: d.Actions(),
		Tags: d.Tags, FirewallRulesets: make([]models.RulesetRef, len(d.RulesetIDs)),
	}
	for i, m := range d.Mounts {
		out.FileSystemNames[i] = m.FilesystemName
		out.FileSystemMounts = append(out.FileSystemMounts, mountJSON{MountPoint: m.MountPoint, FileSystemID: m.FilesystemID})
	}
	for i, id := range d.RulesetIDs {
		out.FirewallRulesets[i] = models.RulesetRef{ID: id}
	}
	if out.Tags == nil {
		out.Tags = []models.InstanceTag{}
	}
	return out
}

func newInstancesJSON(ds []models.InstanceDetail) []instanceJSON {
	out := make([]instanceJSON, len(ds))
	for i := range ds {
		out[i] = newInstanceJSON(&ds[i])
	}
	return out
}

// Instances lists the account's instances that are not terminated.
func (h *Handlers) Instances(c *fiber.Ctx) error {
	ds, err := h.store.Instances(c.UserContext(), Actor(c))
	if err != nil {
		return err
	}
	return ok(c, newInstancesJSON(ds))
}

// Instance answers one instance of the account.
func (h *Handlers) Instance(c *fiber.Ctx) error {
	d, err := h.store.Instance(c.UserContext(), Actor(c), c.Params("id"))
	if err != nil {
		return err
	}
	return ok(c, newInstanceJSON(d))
}

// UpdateInstance renames an instance.
func (h *Handlers) UpdateInstance(c *fiber.Ctx) error {
	var in models.UpdateInstanceInput
	if err := decode(c, &in); err != nil {
		return err
	}
	d, err := h.store.UpdateInstance(c.UserContext(), Actor(c), c.Params("id"), in)
	if err != nil {
		return err
	}
	return ok(c, newInstanceJSON(d))
}
