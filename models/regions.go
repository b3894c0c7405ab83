package models

import "fmt"

// Region is a place where resources live. The catalogue is fixed.
type Region struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// Regions is the catalogue, in the order the API lists it.
var Regions = []Region{
	{"us-east-1", "Virginia, USA"},
	{"us-west-1", "California, USA"},
	{"us-south-1", "Texas, USA"},
	{"us-midwest-1", "Illinois, USA"},
	{"europe-central-1", "Germany"},
	{"asia-northeast-1", "Tokyo, Japan"},
}

// RegionNoFirewall is the region where firewall rules do not apply, so
// rulesets cannot be created there.
const RegionNoFirewall = "us-south-1"

var regionsByName = func() map[string]Region {
	m := make(map[string]Region, len(Regions))
	for _, r := range Regions {
		m[r.Name] = r
	}
	return m
}()

// LookupRegion finds a region by name.
func LookupRegion(name string) (Region, bool) {
	r, ok := regionsByName[name]
	return r, ok
}

// validateRegion adds a field error unless name is a known region.
func validateRegion(f *FieldErrors, field, name string) {
	if name == "" {
		f.Add(field, "is required")
		return
	}
	if _, ok := regionsByName[name]; !ok {
		f.Add(field, fmt.Sprintf("unknown region %q; see GET /api/v1/regions", name))
	}
}
