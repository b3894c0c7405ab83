package models

import "time"

// resolve moves a transitional status that has ended by now to the status
// it leads to, and reports whether it changed. Reads call it on the rows
// they return; writes call it and persist the result.
func (i *Instance) resolve(now time.Time) bool {
	if i.StatusUntil == nil || now.Before(*i.StatusUntil) {
		return false
	}
	switch i.Status {
	case InstanceBooting:
		i.Status = InstanceActive
	case InstanceTerminating:
		i.Status = InstanceTerminated
	}
	i.StatusUntil = nil
	return true
}

// Reasons an action is unavailable. The first two are the reference's
// codes; the last is ours, for operations cloudplane does not simulate.
const (
	ReasonNotLaunched  = "vm-has-not-launched"
	ReasonTerminating  = "vm-is-terminating"
	ReasonNotSupported = "not-supported"
)

// ActionAvailability says whether an operation can be done on an instance
// now and, if not, why. The JSON tags are the API's field names.
type ActionAvailability struct {
	Available         bool   `json:"available"`
	ReasonCode        string `json:"reason_code,omitempty"`
	ReasonDescription string `json:"reason_description,omitempty"`
}

// InstanceActions is the availability of each instance operation.
type InstanceActions struct {
	Migrate    ActionAvailability `json:"migrate"`
	Rebuild    ActionAvailability `json:"rebuild"`
	Restart    ActionAvailability `json:"restart"`
	ColdReboot ActionAvailability `json:"cold_reboot"`
	Terminate  ActionAvailability `json:"terminate"`
}

var (
	available    = ActionAvailability{Available: true}
	notLaunched  = ActionAvailability{ReasonCode: ReasonNotLaunched, ReasonDescription: "The instance is still booting"}
	terminating  = ActionAvailability{ReasonCode: ReasonTerminating, ReasonDescription: "The instance is terminating or terminated"}
	notSupported = ActionAvailability{ReasonCode: ReasonNotSupported, ReasonDescription: "This operation is not offered for simulated instances"}
)

// Actions reports what can be done with the instance in its current
// status. Restart and terminate check it, so the API never advertises an
// action it would refuse. Migrate, rebuild and cold reboot are never
// offered: cloudplane serves no endpoint for them.
func (i *Instance) Actions() InstanceActions {
	switch i.Status {
	case InstanceBooting:
		return InstanceActions{Migrate: notLaunched, Rebuild: notLaunched, Restart: notLaunched,
			ColdReboot: notLaunched, Terminate: available}
	case InstanceTerminating, InstanceTerminated:
		return InstanceActions{Migrate: terminating, Rebuild: terminating, Restart: terminating,
			ColdReboot: terminating, Terminate: terminating}
	}
	return InstanceActions{Migrate: notSupported, Rebuild: notSupported, Restart: available,
		ColdReboot: notSupported, Terminate: available}
}
