package models

import (
	"encoding/json"
	"reflect"
	"testing"
)

// decodeRules answers exactly what json.Unmarshal does, whatever the
// input: the same rules (nil and empty told apart) or an error.
func FuzzDecodeRules(f *testing.F) {
	marshaled := [][]FirewallRule{nil, {}, {DefaultInboundRule()},
		{{Protocol: ProtocolICMP, SourceNetwork: "203.0.113.0/24", Description: "<ping> & \"echo\" \u2028 é"},
			{Protocol: ProtocolTCP, PortRange: []int{}, SourceNetwork: "::/0"},
			{Protocol: ProtocolUDP, PortRange: []int{-1, 0, 65535, 1 << 40}, Description: "bad \xff utf-8"}}}
	for _, rules := range marshaled {
		data, err := json.Marshal(rules)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{"", " null", "[ ]", "[{}]", `[{"protocol":"tcp"}]`, `[{"Protocol":"tcp","source_network":"","description":""}]`,
		`[{"protocol":"tcp","port_range":[01],"source_network":"","description":""}]`,
		`[{"protocol":"tcp","port_range":[-0,99999999999999999999],"source_network":"","description":""}]`,
		`[{"protocol":"tcp","port_range":[1,],"source_network":"","description":""}]`,
		`[{"protocol":"a\tb","source_network":"","description":""}]`, `[{"protocol":"x","source_network":"","description":""}]x`,
		`[{"protocol":"x","source_network":"","description":""},]`, `[{"protocol":"\u00e9\ud83d\ude80\/\b\u","source_network":"\"","description":"\\"}]`, `[{"protocol":"x","source_network":"","description":"","x":1}]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var want []FirewallRule
		wantErr := json.Unmarshal(data, &want)
		got, err := decodeRules(data)
		if (err != nil) != (wantErr != nil) || (err != nil && err.Error() != wantErr.Error()) {
			t.Fatalf("decodeRules(%q): error %v, json.Unmarshal %v", data, err, wantErr)
		}
		if err == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("decodeRules(%q) = %#v, json.Unmarshal %#v", data, got, want)
		}
	})
}

// Rules as json.Marshal stores them, HTML escapes included, are read
// without json.Unmarshal.
func TestDecodeRulesReadsMarshaledRulesItself(t *testing.T) {
	data, err := json.Marshal([]FirewallRule{DefaultInboundRule(), {Protocol: ProtocolICMP, SourceNetwork: "0.0.0.0/0", Description: "é <&>"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := decodeMarshaledRules(data); !ok {
		t.Fatalf("%s went to json.Unmarshal", data)
	}
	if n := testing.AllocsPerRun(100, func() { _, _ = decodeRules(data) }); n > 4 {
		t.Fatalf("%v allocations, want at most 4", n)
	}
}
