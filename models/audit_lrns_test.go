package models

import (
	"encoding/json"
	"reflect"
	"testing"
)

// Stored resource_lrns texts: what json.Marshal writes (HTML-escaped),
// what another writer might (spaces, raw <, escapes), and text that is not
// an array of strings at all.
var storedLRNs = []string{
	`[]`, `["lrn:cloud:filesystem:abc"]`, `["a","b","c"]`, ` [ "a" , "b" ] `, "[\n\t\"a\"\r\n]",
	`null`, `[null]`, `["a",null]`, `[1]`, `{}`, `""`, ``, `[`, `["a"`, `["a",]`, `[,"a"]`, `["a""b"]`, `["a"]x`,
	`["\u003cb\u003e \u0026"]`, `["<b> &"]`, `["quote \" back \\ slash \/"]`, `["\n\t\u0000\u001f"]`,
	`["é ü 日本 🚀"]`, `["\u00e9\ud83d\ude80"]`, "[\"\u2028 \u2029\"]", `["\u2028"]`, "[\"bad \xff utf-8\"]",
	"[\"raw \x01 control\"]", `["\ud800 lone surrogate"]`, "[\"\x7f\"]", `["a"] `, `[ ]`,
}

// decodeAuditLRNs gives exactly what json.Unmarshal gives, nil or empty,
// error or not; the plain path never answers what Unmarshal would not.
func TestDecodeAuditLRNsAsUnmarshal(t *testing.T) {
	for _, raw := range storedLRNs {
		checkAuditLRNs(t, []byte(raw))
	}
}

func FuzzDecodeAuditLRNs(f *testing.F) {
	for _, raw := range storedLRNs {
		f.Add([]byte(raw))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { checkAuditLRNs(t, raw) })
}

func checkAuditLRNs(t *testing.T, raw []byte) {
	t.Helper()
	var want []string
	wantErr := json.Unmarshal(raw, &want)
	got, err := decodeAuditLRNs(raw)
	if (err != nil) != (wantErr != nil) || wantErr == nil && !sameLRNs(got, want) {
		t.Fatalf("decodeAuditLRNs(%q) = %#v, %v; json.Unmarshal gives %#v, %v", raw, got, err, want, wantErr)
	}
	if plain, ok := plainAuditLRNs(raw); ok && (wantErr != nil || !sameLRNs(plain, want)) {
		t.Fatalf("plainAuditLRNs(%q) = %#v; json.Unmarshal gives %#v, %v", raw, plain, want, wantErr)
	}
}

// sameLRNs tells nil from empty, as a caller testing for nil would.
func sameLRNs(a, b []string) bool {
	return (a == nil) == (b == nil) && reflect.DeepEqual(append([]string{}, a...), append([]string{}, b...))
}

// The plain path is the one stored names take.
func TestPlainAuditLRNsReadsStoredNames(t *testing.T) {
	for _, lrns := range [][]string{{}, {"lrn:cloud:filesystem:abc"}, {"lrn:cloud:instance:x", "lrn:cloud:filesystem:y"}} {
		raw, err := json.Marshal(lrns)
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := plainAuditLRNs(raw); !ok || !sameLRNs(got, lrns) {
			t.Fatalf("plainAuditLRNs(%s) = %#v, %v", raw, got, ok)
		}
	}
}

// BenchmarkDecodeAuditLRNs compares reading a stored array with
// json.Unmarshal (before) and with decodeAuditLRNs (after).
func BenchmarkDecodeAuditLRNs(b *testing.B) {
	raw := []byte(`["lrn:cloud:filesystem:0f6d2c8e4b7a4e1c9a3b5d7f1e2c4a6b"]`)
	unmarshal := func(raw []byte) (lrns []string, err error) { return lrns, json.Unmarshal(raw, &lrns) }
	for _, way := range []struct {
		name   string
		decode func([]byte) ([]string, error)
	}{{"unmarshal", unmarshal}, {"decode", decodeAuditLRNs}} {
		b.Run(way.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := way.decode(raw); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
