package models

import "fmt"

// InstanceTypeSpecs is the hardware of an instance type.
type InstanceTypeSpecs struct {
	VCPUs      int `json:"vcpus"`
	MemoryGiB  int `json:"memory_gib"`
	StorageGiB int `json:"storage_gib"`
	GPUs       int `json:"gpus"`
}

// InstanceType is a machine shape that can be launched. The catalogue is
// fixed; the JSON tags are the API's field names.
type InstanceType struct {
	Name              string            `json:"name"`
	Description       string            `json:"description"`
	GPUDescription    string            `json:"gpu_description"`
	PriceCentsPerHour int               `json:"price_cents_per_hour"`
	Specs             InstanceTypeSpecs `json:"specs"`
}

// InstanceTypes is the catalogue, in the order the API lists it.
var InstanceTypes = []InstanceType{
	{"gpu_1x_a10", "1x A10 (24 GB PCIe)", "A10 (24 GB PCIe)", 75, InstanceTypeSpecs{30, 200, 1400, 1}},
	{"gpu_1x_a6000", "1x RTX A6000 (48 GB)", "RTX A6000 (48 GB)", 80, InstanceTypeSpecs{14, 100, 512, 1}},
	{"gpu_1x_a100_sxm4", "1x A100 (40 GB SXM4)", "A100 (40 GB SXM4)", 129, InstanceTypeSpecs{30, 200, 512, 1}},
	{"gpu_8x_a100_80gb_sxm4", "8x A100 (80 GB SXM4)", "A100 (80 GB SXM4)", 1432, InstanceTypeSpecs{240, 1800, 19960, 8}},
	{"gpu_1x_h100_pcie", "1x H100 (80 GB PCIe)", "H100 (80 GB PCIe)", 249, InstanceTypeSpecs{26, 200, 1024, 1}},
	{"gpu_8x_h100_sxm5", "8x H100 (80 GB SXM5)", "H100 (80 GB SXM5)", 2392, InstanceTypeSpecs{208, 1800, 22528, 8}},
	{"gpu_1x_gh200", "1x GH200 (96 GB)", "GH200 (96 GB)", 149, InstanceTypeSpecs{64, 432, 4096, 1}},
	{"gpu_8x_v100", "8x Tesla V100 (16 GB)", "Tesla V100 (16 GB)", 440, InstanceTypeSpecs{92, 448, 5908, 8}},
}

var instanceTypesByName = func() map[string]InstanceType {
	m := make(map[string]InstanceType, len(InstanceTypes))
	for _, t := range InstanceTypes {
		m[t.Name] = t
	}
	return m
}()

// LookupInstanceType finds an instance type by name.
func LookupInstanceType(name string) (InstanceType, bool) {
	t, ok := instanceTypesByName[name]
	return t, ok
}

// validateInstanceType adds a field error unless name is in the catalogue.
func validateInstanceType(f *FieldErrors, field, name string) {
	if name == "" {
		f.Add(field, "is required")
		return
	}
	if _, ok := instanceTypesByName[name]; !ok {
		f.Add(field, fmt.Sprintf("unknown instance type %q; see GET /api/v1/instance-types", name))
	}
}
