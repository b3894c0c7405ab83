package api

import (
	"strconv"

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
	body, err := h.store.InstancesEncoded(c.UserContext(), Actor(c), instanceListJSON)
	if err != nil {
		return err
	}
	return sendJSON(c, body)
}

// instanceListJSON is the instance list's body, which the store keeps with
// the list it encodes until the list changes or an instance's status ends.
var instanceListJSON = models.NewListEncoding(encodeInstanceList)

// encodeInstanceList is the list's body in a buffer sized for it (an
// instance is about 1 kB).
func encodeInstanceList(list []models.InstanceDetail) []byte {
	return appendInstanceList(make([]byte, 0, 128+1200*len(list)), list)
}

// appendInstanceList appends the list's body, {"data": [...]}, as ok
// would write it.
func appendInstanceList(dst []byte, list []models.InstanceDetail) []byte {
	dst = append(dst, `{"data":[`...)
	for i := range list {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendInstanceJSON(dst, &list[i])
	}
	return append(dst, ']', '}')
}

// appendInstanceJSON appends d as encoding/json marshals
// newInstanceJSON(d), without reflection or the intermediate struct.
func appendInstanceJSON(dst []byte, d *models.InstanceDetail) []byte {
	dst = append(dst, `{"id":`...)
	dst = appendJSONString(dst, d.ID)
	dst = append(dst, `,"name":`...)
	dst = appendJSONString(dst, d.Name)
	dst = append(dst, `,"ip":`...)
	dst = appendJSONString(dst, d.IP)
	dst = append(dst, `,"private_ip":`...)
	dst = appendJSONString(dst, d.PrivateIP)
	dst = append(dst, `,"status":`...)
	dst = appendJSONString(dst, d.Status)
	dst = append(dst, `,"ssh_key_names":`...)
	dst = appendJSONStrings(dst, d.SSHKeyNames)
	dst = append(dst, `,"file_system_names":[`...)
	for i := range d.Mounts {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSONString(dst, d.Mounts[i].FilesystemName)
	}
	dst = append(dst, ']')
	if len(d.Mounts) > 0 { // omitempty
		dst = append(dst, `,"file_system_mounts":[`...)
		for i, m := range d.Mounts {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"mount_point":`...)
			dst = appendJSONString(dst, m.MountPoint)
			dst = append(dst, `,"file_system_id":`...)
			dst = appendJSONString(dst, m.FilesystemID)
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	region, _ := models.LookupRegion(d.RegionName)
	dst = append(dst, `,"region":{"name":`...)
	dst = appendJSONString(dst, region.Name)
	dst = append(dst, `,"description":`...)
	dst = appendJSONString(dst, region.Description)
	dst = append(dst, `},"instance_type":`...)
	dst = appendInstanceTypeJSON(dst, d.InstanceTypeName)
	dst = append(dst, `,"hostname":`...)
	dst = appendJSONString(dst, d.Hostname)
	dst = append(dst, `,"actions":`...)
	dst = appendInstanceActionsJSON(dst, d.Actions())
	dst = append(dst, `,"tags":[`...)
	for i, t := range d.Tags {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"key":`...)
		dst = appendJSONString(dst, t.Key)
		dst = append(dst, `,"value":`...)
		dst = appendJSONString(dst, t.Value)
		dst = append(dst, '}')
	}
	dst = append(dst, `],"firewall_rulesets":[`...)
	for i, id := range d.RulesetIDs {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"id":`...)
		dst = appendJSONString(dst, id)
		dst = append(dst, '}')
	}
	return append(dst, ']', '}')
}

// appendInstanceTypeJSON appends the catalogue's instance type by name
// (its zero value for an unknown name, as newInstanceJSON has it).
func appendInstanceTypeJSON(dst []byte, name string) []byte {
	t, _ := models.LookupInstanceType(name)
	dst = append(dst, `{"name":`...)
	dst = appendJSONString(dst, t.Name)
	dst = append(dst, `,"description":`...)
	dst = appendJSONString(dst, t.Description)
	dst = append(dst, `,"gpu_description":`...)
	dst = appendJSONString(dst, t.GPUDescription)
	dst = append(dst, `,"price_cents_per_hour":`...)
	dst = strconv.AppendInt(dst, int64(t.PriceCentsPerHour), 10)
	dst = append(dst, `,"specs":{"vcpus":`...)
	dst = strconv.AppendInt(dst, int64(t.Specs.VCPUs), 10)
	dst = append(dst, `,"memory_gib":`...)
	dst = strconv.AppendInt(dst, int64(t.Specs.MemoryGiB), 10)
	dst = append(dst, `,"storage_gib":`...)
	dst = strconv.AppendInt(dst, int64(t.Specs.StorageGiB), 10)
	dst = append(dst, `,"gpus":`...)
	dst = strconv.AppendInt(dst, int64(t.Specs.GPUs), 10)
	return append(dst, '}', '}')
}

// appendInstanceActionsJSON appends a as encoding/json marshals it.
func appendInstanceActionsJSON(dst []byte, a models.InstanceActions) []byte {
	dst = append(dst, `{"migrate":`...)
	dst = appendActionJSON(dst, a.Migrate)
	dst = append(dst, `,"rebuild":`...)
	dst = appendActionJSON(dst, a.Rebuild)
	dst = append(dst, `,"restart":`...)
	dst = appendActionJSON(dst, a.Restart)
	dst = append(dst, `,"cold_reboot":`...)
	dst = appendActionJSON(dst, a.ColdReboot)
	dst = append(dst, `,"terminate":`...)
	dst = appendActionJSON(dst, a.Terminate)
	return append(dst, '}')
}

// appendActionJSON appends a with its omitempty reasons left out when
// empty.
func appendActionJSON(dst []byte, a models.ActionAvailability) []byte {
	dst = append(dst, `{"available":`...)
	dst = strconv.AppendBool(dst, a.Available)
	if a.ReasonCode != "" {
		dst = append(dst, `,"reason_code":`...)
		dst = appendJSONString(dst, a.ReasonCode)
	}
	if a.ReasonDescription != "" {
		dst = append(dst, `,"reason_description":`...)
		dst = appendJSONString(dst, a.ReasonDescription)
	}
	return append(dst, '}')
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
