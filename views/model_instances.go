package views

import "time"

// Navigation items of the compute pages.
const (
	NavInstances = "instances"
	NavSSHKeys   = "ssh-keys"
	NavAudit     = "audit"
)

// Element ids that htmx requests name in HX-Target to get a component
// alone: the polled instances table and instance details.
const (
	InstancesTableID = "instances-table"
	InstanceDetailID = "instance-detail"
)

// Instance statuses, as the domain names them.
const (
	StatusBooting     = "booting"
	StatusActive      = "active"
	StatusUnhealthy   = "unhealthy"
	StatusTerminating = "terminating"
	StatusTerminated  = "terminated"
)

// Instance is one instance, as its row and its page show it.
type Instance struct {
	ID                string
	Name              string
	Status            string
	IP                string
	PrivateIP         string
	Hostname          string
	Region            string
	RegionDescription string
	Type              string
	TypeDescription   string
	Price             string // "$0.75 / hour"
	Launched          time.Time
	Uptime            time.Duration // from launch to now or its termination
	SpendCents        int64         // what it has cost so far
	SSHKeys           []string
	SSHKeyFile        string // the file the SSH keys page suggested for the key's private half
	Image             string // the image's name, "" when none was recorded
	ImageVersion      string
	ImageDescription  string
	Mounts            []Mount
	Rulesets          []string // names
	CanRestart        bool
	CanTerminate      bool
	CSRF              string
	// BootTime is how long a launch or a restart boots
	// (--instance-boot-time), said while the instance is booting.
	BootTime time.Duration
}

// Mount is a filesystem mounted on an instance.
type Mount struct {
	Name       string
	MountPoint string
}

// Transitional reports whether the status will change by itself, so
// the page keeps asking for it.
func (i Instance) Transitional() bool {
	return i.Status == StatusBooting || i.Status == StatusTerminating
}

// Title names the instance: its name, or its short id when it has none.
func (i Instance) Title() string {
	if i.Name != "" {
		return i.Name
	}
	return "Instance " + ShortID(i.ID)
}

// ShortID is the last eight characters of an id, enough to tell objects
// of one account apart. Not the first: an id starts with the time it was
// made, the same for everything made within a minute.
func ShortID(id string) string {
	if len(id) > 8 {
		return id[len(id)-8:]
	}
	return id
}

// Instances is the instances page.
type Instances struct {
	Rows []Instance
}

// SSHCommand is the command that logs in to the instance with the key's
// private half where the SSH keys page said to save it.
func (i Instance) SSHCommand() string {
	if i.SSHKeyFile == "" {
		return "ssh ubuntu@" + i.IP
	}
	return "ssh -i ~/.ssh/" + i.SSHKeyFile + " ubuntu@" + i.IP
}

// Launch is the launch form with everything it offers.
type Launch struct {
	Form        Form
	Types       []InstanceType
	Region      Field // a select
	SSHKey      Field // a select
	Image       Field // a select grouped by family
	Filesystems Field // a checkbox list
	Rulesets    Field // a checkbox list
	Tags        []TagRow
	TagsError   string // a problem with the list as a whole
	MaxTags     int
	// BillingInvalid warns that launches are refused until support
	// corrects the account's billing address.
	BillingInvalid bool
	CSRF           string
	// NewKey is the form, inside the launch form, that adds or generates
	// an SSH key without leaving it; Generated is the pair it has just
	// generated, shown in this one answer.
	NewKey    Form
	Generated *GeneratedKey
	// AddedKey names the key just added or generated, now chosen.
	AddedKey string
	// BootTime is how long an instance boots (--instance-boot-time).
	BootTime time.Duration
	// Price is the summary beside the Launch button.
	Price       LaunchPrice
	MaxQuantity int
}

// TagRow is one key/value row of the launch form's tags; blank rows are
// ignored.
type TagRow struct {
	Key, Value string
	Error      string // a sentence about the row
}

// InstanceType is one choice of the launch form's type list.
type InstanceType struct {
	Name        string
	Description string
	Specs       string
	Price       string
	Regions     []string // with capacity now
	Checked     bool
}

// BootTimeText says a boot time in words: "30 seconds", "2 minutes",
// "1 minute 30 seconds".
func BootTimeText(d time.Duration) string {
	d = d.Round(time.Second)
	if d < time.Second {
		return "under a second"
	}
	minutes, seconds := int(d/time.Minute), int(d%time.Minute/time.Second)
	switch {
	case minutes == 0:
		return Count(seconds, "second", "seconds")
	case seconds == 0:
		return Count(minutes, "minute", "minutes")
	}
	return Count(minutes, "minute", "minutes") + " " + Count(seconds, "second", "seconds")
}

// LaunchSSHKeyID is the launch form's SSH key part, which adding or
// generating a key with script replaces.
const LaunchSSHKeyID = "launch-ssh-key"

// LaunchPrice is the price summary beside the Launch button: the chosen
// type × quantity when a type is chosen, and every type's prices.
type LaunchPrice struct {
	Chosen   bool
	TypeName string
	Quantity int
	PerHour  int64 // cents, all the instances
	PerMonth int64 // cents, for HoursPerMonth hours
	Hours    int   // the hours a month is quoted for
	Types    []LaunchTypePrice
}

// LaunchTypePrice is one type's prices for one instance.
type LaunchTypePrice struct {
	Name     string
	PerHour  int64
	PerMonth int64
}

// LaunchPriceID is the summary's element id; LaunchPriceTextID is the
// sentence in it that htmx swaps.
const (
	LaunchPriceID     = "launch-price"
	LaunchPriceTextID = "launch-price-text"
)
