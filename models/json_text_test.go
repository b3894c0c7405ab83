package models

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// jsonTextLen counts exactly what encoding/json writes, for every kind of
// character it escapes and random bytes (invalid UTF-8 among them).
func TestJSONTextLenIsWhatEncodingJSONWrites(t *testing.T) {
	texts := []string{"", "plain", "<&>", "\"\\", "\n\r\t\b\f", "\x00\x01\x1f\x7f", "\u2028\u2029",
		"emoji 😀 é ü 中", "\xff\xfe", "\xe2\x82", "a<b>c&d\x00e\xf0\x9f\x98\x80f\xc3"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		b := make([]byte, rng.IntN(40))
		for i := range b {
			b[i] = byte(rng.UintN(256))
		}
		texts = append(texts, string(b))
	}
	texts = append(texts, strings.Repeat("<", 1000))
	for _, s := range texts {
		encoded, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := jsonTextLen(s), int64(len(encoded)-2); got != want {
			t.Fatalf("jsonTextLen(%q) = %d, encoding/json writes %d: %s", s, got, want, encoded)
		}
	}
}
