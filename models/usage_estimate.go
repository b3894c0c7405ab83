package models

import (
	"fmt"
	"time"
)

// HoursPerMonth is the month a monthly price is quoted for: 730 hours,
// a year's 8,760 hours over twelve.
const HoursPerMonth = 730

// LaunchEstimate is what a launch would cost at today's catalogue price:
// every page and API that quotes a launch uses it.
type LaunchEstimate struct {
	InstanceTypeName  string
	Quantity          int
	PriceCentsPerHour int64 // one instance
	PerHourCents      int64 // all of them, per hour
	PerMonthCents     int64 // all of them, for HoursPerMonth hours
}

// EstimateLaunch prices quantity instances of the type, as the launch
// would (launchPrice). Codes: CodeInvalidParameters naming
// instance_type_name or quantity.
func EstimateLaunch(typeName string, quantity int) (LaunchEstimate, error) {
	f := &FieldErrors{}
	validateInstanceType(f, "instance_type_name", typeName)
	if quantity < 1 || quantity > MaxLaunchQuantity {
		f.Add("quantity", fmt.Sprintf("must be between 1 and %d, got %d", MaxLaunchQuantity, quantity))
	}
	if err := f.Err(); err != nil {
		return LaunchEstimate{}, err
	}
	price := launchPrice(typeName)
	hour := price * int64(quantity)
	return LaunchEstimate{InstanceTypeName: typeName, Quantity: quantity, PriceCentsPerHour: price,
		PerHourCents: hour, PerMonthCents: hour * HoursPerMonth}, nil
}

// InstanceSpend is an instance's life so far as read at now: how long it
// has accrued and what that cost, by the rule of usage_cost.go.
type InstanceSpend struct {
	Uptime    time.Duration // from launch to now or its termination
	CostCents int64
}

// SpendSoFar is what the instance has cost from its launch up to now (or
// up to its termination, when that is earlier).
func (inst *Instance) SpendSoFar(now time.Time) InstanceSpend {
	sp := instanceSpan{launch: inst.CreatedAt.UTC(), terminatedAt: inst.TerminatedAt, price: inst.PriceCentsPerHour}
	_, cents := sp.costBetween(sp.launch, now, now)
	stop := now
	if inst.TerminatedAt != nil && inst.TerminatedAt.Before(stop) {
		stop = *inst.TerminatedAt
	}
	return InstanceSpend{Uptime: max(stop.Sub(sp.launch), 0), CostCents: cents}
}
