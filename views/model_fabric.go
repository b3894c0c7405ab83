package views

import "time"

// NavFabric is the fabric partitions page's navigation item.
const NavFabric = "fabric"

// FabricPartitions is the fabric partitions page.
type FabricPartitions struct {
	Partitions  []FabricPartition
	WorkspaceID string // the account's default workspace, where new ones go
	Quota       string // "2 of 10 partitions used"
	Regions     []Option
	Form        Form
	CSRF        string
}

// FabricPartition is one row of the partitions table.
type FabricPartition struct {
	ID                string
	Name              string
	Region            string
	RegionDescription string
	Created           time.Time
}

// RenameFabricPartition is the form that renames a partition, a page of
// its own or the dialog's content.
type RenameFabricPartition struct {
	ID       string
	Current  string // the name it has
	Form     Form
	CSRF     string
	InDialog bool
}
