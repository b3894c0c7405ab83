package models

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// defaultCapacity is what a server offers without --instance-capacity: each
// type in a few regions, with a few slots, the big machines scarcer.
var defaultCapacity = map[string]map[string]int{
	"gpu_1x_a10":            {"us-east-1": 4, "us-west-1": 4, "us-south-1": 2, "europe-central-1": 2},
	"gpu_1x_a6000":          {"us-west-1": 2, "us-midwest-1": 2},
	"gpu_1x_a100_sxm4":      {"us-east-1": 2, "us-west-1": 2, "asia-northeast-1": 1},
	"gpu_8x_a100_80gb_sxm4": {"us-west-1": 1, "us-midwest-1": 1},
	"gpu_1x_h100_pcie":      {"us-east-1": 3, "us-west-1": 2, "us-south-1": 2},
	"gpu_8x_h100_sxm5":      {"us-east-1": 1, "us-south-1": 1},
	"gpu_1x_gh200":          {"us-east-1": 2, "us-west-1": 1},
	"gpu_8x_v100":           {"us-south-1": 1},
}

// DefaultCapacity returns a copy of the capacity used when Config.Capacity
// is nil.
func DefaultCapacity() map[string]map[string]int {
	out := make(map[string]map[string]int, len(defaultCapacity))
	for t, regions := range defaultCapacity {
		out[t] = make(map[string]int, len(regions))
		for r, n := range regions {
			out[t][r] = n
		}
	}
	return out
}

// ParseCapacity reads the operator's capacity, a comma-separated list of
// <instance type>:<region>=<count>, e.g.
// "gpu_1x_a10:us-east-1=4,gpu_8x_h100_sxm5:us-west-1=1". The list replaces
// the default: pairs it does not name have no capacity. An empty spec
// means the default (nil).
func ParseCapacity(spec string) (map[string]map[string]int, error) {
	if strings.TrimSpace(spec) == "" {
		return nil, nil
	}
	out := map[string]map[string]int{}
	for _, entry := range strings.Split(spec, ",") {
		entry = strings.TrimSpace(entry)
		pair, count, ok := strings.Cut(entry, "=")
		typeName, region, ok2 := strings.Cut(pair, ":")
		if !ok || !ok2 {
			return nil, fmt.Errorf("%q: want <instance type>:<region>=<count>", entry)
		}
		if _, known := LookupInstanceType(typeName); !known {
			return nil, fmt.Errorf("%q: unknown instance type %q", entry, typeName)
		}
		if _, known := LookupRegion(region); !known {
			return nil, fmt.Errorf("%q: unknown region %q", entry, region)
		}
		n, err := strconv.Atoi(count)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%q: count must be a whole number >= 0", entry)
		}
		if _, dup := out[typeName][region]; dup {
			return nil, fmt.Errorf("%q: %s in %s is given twice", entry, typeName, region)
		}
		if out[typeName] == nil {
			out[typeName] = map[string]int{}
		}
		out[typeName][region] = n
	}
	return out, nil
}

// capacity is how many instances of a type may run in a region at once.
func (s *Store) capacity(typeName, region string) int {
	c := s.cfg.Capacity
	if c == nil {
		c = defaultCapacity
	}
	return c[typeName][region]
}

// AvailableInstanceType is an instance type with the regions where it can
// be launched now.
type AvailableInstanceType struct {
	InstanceType
	Regions []Region
}

// inUseByPlaceSQL counts the instances that hold capacity, by instance
// type and region; it takes one argument, instanceInUseStatuses.
// idx_instances_in_use holds every column it reads, so the count reads
// no instance's row (migration 0036): up to a row per instance running
// in the whole installation, on every read of the list.
const inUseByPlaceSQL = `SELECT instance_type_name, region_name, COUNT(*) AS running FROM instances
	WHERE status IN ? GROUP BY instance_type_name, region_name`

// AvailableInstanceTypes lists the catalogue, each type with the regions
// where fewer instances of it run (booting, active or unhealthy, in every
// account) than the region's capacity. Anyone authenticated may call it.
func (s *Store) AvailableInstanceTypes(ctx context.Context) ([]AvailableInstanceType, error) {
	var rows []struct {
		InstanceTypeName string
		RegionName       string
		Running          int
	}
	err := s.read(ctx).Raw(inUseByPlaceSQL, instanceInUseStatuses).Scan(&rows).Error
	if err != nil {
		return nil, err
	}
	running := map[[2]string]int{}
	for _, r := range rows {
		running[[2]string{r.InstanceTypeName, r.RegionName}] = r.Running
	}
	out := make([]AvailableInstanceType, len(InstanceTypes))
	for i, t := range InstanceTypes {
		out[i] = AvailableInstanceType{InstanceType: t, Regions: []Region{}}
		for _, r := range Regions {
			if running[[2]string{t.Name, r.Name}] < s.capacity(t.Name, r.Name) {
				out[i].Regions = append(out[i].Regions, r)
			}
		}
	}
	return out, nil
}

// CapacityLock is one row per (instance type, region) that launches lock
// before counting running instances. Capacity spans accounts, so the
// account lock alone cannot keep two launches from taking the last slot.
type CapacityLock struct {
	InstanceTypeName string `gorm:"primaryKey;size:64"`
	RegionName       string `gorm:"primaryKey;size:32"`
}

// reserveCapacity fails with CodeInsufficientCap (naming the launch's
// instance_type_name) unless n more instances of the type fit in the region. It holds the pair's lock until tx ends, so
// the instances the caller then inserts are counted by the next launch.
// SQLite needs no row lock: BEGIN IMMEDIATE already serialises writers.
func (s *Store) reserveCapacity(tx *gorm.DB, typeName, region string, n int) error {
	lock := CapacityLock{InstanceTypeName: typeName, RegionName: region}
	if err := tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&lock).Error; err != nil {
		return err
	}
	if err := tx.Clauses(forUpdate).Where(&lock).Take(&lock).Error; err != nil {
		return err
	}
	var running int64
	err := tx.Model(&Instance{}).
		Where("instance_type_name = ? AND region_name = ? AND status IN ?", typeName, region, instanceInUseStatuses).
		Count(&running).Error
	if err != nil {
		return err
	}
	if free := s.capacity(typeName, region) - int(running); free < n {
		return &Error{Code: CodeInsufficientCap,
			Message: fmt.Sprintf("Not enough capacity to launch %d %s in %s (%d available)",
				n, typeName, region, max(free, 0)),
			Suggestion: "Try another region or instance type; GET /api/v1/instance-types lists the regions with capacity",
			Fields:     map[string]string{"instance_type_name": capacityMessage(region, free)}}
	}
	return nil
}

// capacityMessage says what is wrong with the launch's instance type, for
// the dashboard to show beside that field.
func capacityMessage(region string, free int) string {
	if free <= 0 {
		return fmt.Sprintf("has no capacity left in %s; choose another region or type", region)
	}
	return fmt.Sprintf("has capacity for only %d more in %s", free, region)
}
