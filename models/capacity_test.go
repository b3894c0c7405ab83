package models_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"cloudplane/models"
)

func TestParseCapacity(t *testing.T) {
	cases := []struct {
		name, spec string
		want       map[string]map[string]int
		wantErr    string
	}{
		{name: "empty means default", spec: "  "},
		{name: "one pair", spec: "gpu_1x_a10:us-east-1=4",
			want: map[string]map[string]int{"gpu_1x_a10": {"us-east-1": 4}}},
		{name: "several pairs with spaces and zero", spec: "gpu_1x_a10:us-east-1=4, gpu_1x_a10:us-west-1=0,gpu_8x_h100_sxm5:us-west-1=1",
			want: map[string]map[string]int{"gpu_1x_a10": {"us-east-1": 4, "us-west-1": 0}, "gpu_8x_h100_sxm5": {"us-west-1": 1}}},
		{name: "unknown type", spec: "gpu_9x_z:us-east-1=1", wantErr: `unknown instance type "gpu_9x_z"`},
		{name: "unknown region", spec: "gpu_1x_a10:mars-1=1", wantErr: `unknown region "mars-1"`},
		{name: "no count", spec: "gpu_1x_a10:us-east-1", wantErr: "want <instance type>:<region>=<count>"},
		{name: "no region", spec: "gpu_1x_a10=3", wantErr: "want <instance type>:<region>=<count>"},
		{name: "negative count", spec: "gpu_1x_a10:us-east-1=-1", wantErr: "whole number"},
		{name: "count not a number", spec: "gpu_1x_a10:us-east-1=many", wantErr: "whole number"},
		{name: "pair given twice", spec: "gpu_1x_a10:us-east-1=1,gpu_1x_a10:us-east-1=2", wantErr: "given twice"},
		{name: "trailing comma", spec: "gpu_1x_a10:us-east-1=1,", wantErr: "want <instance type>"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := models.ParseCapacity(tc.spec)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want one containing %q", err, tc.wantErr)
				}
				if strings.Contains(err.Error(), "\n") {
					t.Fatalf("error is not one line: %q", err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

// The built-in capacity names only catalogue entries and offers every type
// somewhere, so a fresh server can launch each of them.
func TestDefaultCapacityCoversTheCatalogue(t *testing.T) {
	def := models.DefaultCapacity()
	for _, typ := range models.InstanceTypes {
		total := 0
		for region, n := range def[typ.Name] {
			if _, ok := models.LookupRegion(region); !ok {
				t.Errorf("%s: unknown region %q", typ.Name, region)
			}
			total += n
		}
		if total == 0 {
			t.Errorf("%s has no default capacity", typ.Name)
		}
	}
	for name := range def {
		if _, ok := models.LookupInstanceType(name); !ok {
			t.Errorf("default capacity names unknown type %q", name)
		}
	}
	def["gpu_1x_a10"]["us-east-1"] = 999 // a copy: the store's default is untouched
	if models.DefaultCapacity()["gpu_1x_a10"]["us-east-1"] == 999 {
		t.Fatal("DefaultCapacity returned the shared map")
	}
}

func TestAvailableInstanceTypesFollowRunningInstances(t *testing.T) {
	f := newFixture(t, withCapacity("gpu_1x_a10:us-east-1=1,gpu_1x_a10:us-west-1=2"))
	regionsOf := func() []string {
		t.Helper()
		types, err := f.store.AvailableInstanceTypes(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(types) != len(models.InstanceTypes) {
			t.Fatalf("%d types, want the whole catalogue", len(types))
		}
		for _, typ := range types {
			if typ.Name == "gpu_1x_a10" {
				names := []string{}
				for _, r := range typ.Regions {
					names = append(names, r.Name)
				}
				return names
			}
			if len(typ.Regions) != 0 {
				t.Fatalf("%s has regions %v without capacity", typ.Name, typ.Regions)
			}
		}
		t.Fatal("gpu_1x_a10 missing")
		return nil
	}
	if got := regionsOf(); !reflect.DeepEqual(got, []string{"us-east-1", "us-west-1"}) {
		t.Fatalf("regions %v", got)
	}
	ids := f.launch(t, f.alice, launchInput("us-east-1", 1))
	if got := regionsOf(); !reflect.DeepEqual(got, []string{"us-west-1"}) {
		t.Fatalf("after filling us-east-1: regions %v", got)
	}
	if _, err := f.store.TerminateInstances(context.Background(), f.alice, models.InstanceIDsInput{InstanceIDs: ids}); err != nil {
		t.Fatal(err)
	}
	if got := regionsOf(); !reflect.DeepEqual(got, []string{"us-east-1", "us-west-1"}) {
		t.Fatalf("after terminating: regions %v", got)
	}
}
