package models

import (
	"encoding/json"
	"reflect"
	"testing"
)

// decodeInstanceTags answers what json.Unmarshal answers, for the texts
// encoding/json writes and for any other.
func FuzzDecodeInstanceTags(f *testing.F) {
	for _, tags := range [][]InstanceTag{nil, {}, {{Key: "team", Value: "ml"}},
		{{Key: "a", Value: ""}, {Key: "b:c", Value: "é 日本 \u2028 <&>"}}, {{Key: "q", Value: `"quoted" \ back`}},
		{{Key: "ctl", Value: "\n\t\x01"}}, {{Key: "bad", Value: "\xff"}}} {
		raw, err := json.Marshal(tags)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(raw))
	}
	for _, raw := range []string{"", "null", "[ ]", `[{"value":"v","key":"k"}]`, `[{"KEY":"k","value":"v"}]`,
		`[{"key":"k","value":"v"},]`, `[{"key":"k","value":"v"}`, `[{"key":"k","value":"v"}] `, `[{"key":"k","value":"v","x":1}]`,
		`[{"key":"k"}]`, `[{"key":"k","value":"v"}{"key":"k","value":"v"}]`, `[{"key":"k","value":"v\u00e9"}]`, "[{\"key\":\"\xff\",\"value\":\"v\"}]", `{}`} {
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		var want []InstanceTag
		wantErr := json.Unmarshal([]byte(raw), &want)
		got, err := decodeInstanceTags([]byte(raw))
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("%q: error %v, json.Unmarshal's %v", raw, err, wantErr)
		}
		if err == nil && (!reflect.DeepEqual(got, want) || (got == nil) != (want == nil)) {
			t.Fatalf("%q: %#v, json.Unmarshal's %#v", raw, got, want)
		}
	})
}
