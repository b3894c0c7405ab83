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
	SSHKeys           []string
	Mounts            []Mount
	Rulesets          []string // names
	CanRestart        bool
	CanTerminate      bool
	CSRF              string
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

// ShortID is the first eight characters of an id, enough to tell
// objects of one account apart.
func ShortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// Instances is the instances page.
type Instances struct {
	Rows []Instance
}

// Launch is the launch form with everything it offers.
type Launch struct {
	Form        Form
	Types       []InstanceType
	Region      Field // a select
	SSHKey      Field // a select
	Filesystems Field // a checkbox list
	Rulesets    Field // a checkbox list
	CSRF        string
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
