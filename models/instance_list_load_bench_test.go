package models_test

import (
	"context"
	"testing"

	"cloudplane/models/modelstest"
)

// BenchmarkInstanceListLoad reads an account's eight active instances
// (modelstest.EightInstances) from the database, as the API does when its
// cached list is out of date: the row scan and the mounts' and rulesets'
// queries.
//
//	go test ./models -run '^$' -bench InstanceListLoad
func BenchmarkInstanceListLoad(b *testing.B) {
	store, owner, _ := modelstest.EightInstances(b)
	b.ReportAllocs()
	for b.Loop() {
		if got, err := store.Instances(context.Background(), owner.Actor()); err != nil || len(got) != 8 {
			b.Fatalf("%d instances, %v", len(got), err)
		}
	}
}
