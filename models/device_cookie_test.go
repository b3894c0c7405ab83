package models_test

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// A device cookie is recognised for the login it was issued for, by any
// replica (the secret lives in the database), and for no other login.
func TestDeviceCookieIsRecognisedForItsLoginOnly(t *testing.T) {
	ctx := context.Background()
	_, here, there := twoReplicas(t)
	cookie := modelstest.Must[string](t)(here.IssueDeviceCookie(ctx, "ada@example.com"))
	for _, email := range []string{"ada@example.com", " ADA@Example.com "} {
		if d, err := there.RecognizeDevice(ctx, cookie, email); err != nil || !d.Known() {
			t.Fatalf("cookie for ada not recognised as %q on another replica: %v %v", email, d, err)
		}
	}
	if d, err := there.RecognizeDevice(ctx, cookie, "bob@example.com"); err != nil || d.Known() {
		t.Fatalf("ada's cookie recognised for bob: %v %v", d, err)
	}
	// Each cookie has a bucket of its own, even for one login.
	again := modelstest.Must[string](t)(here.IssueDeviceCookie(ctx, "ada@example.com"))
	d1 := modelstest.Must[models.Device](t)(here.RecognizeDevice(ctx, cookie, "ada@example.com"))
	d2 := modelstest.Must[models.Device](t)(here.RecognizeDevice(ctx, again, "ada@example.com"))
	if d1.LimitKey() == d2.LimitKey() {
		t.Fatalf("two cookies share the limit key %q", d1.LimitKey())
	}
}

// A forged, altered, truncated or expired cookie is a stranger's.
func TestDeviceCookieForgeriesAreNotRecognised(t *testing.T) {
	ctx := context.Background()
	clock := modelstest.NewClock()
	store := modelstest.Open(t, models.WithClock(clock.Now))
	other := modelstest.Open(t) // another installation, another secret
	cookie := modelstest.Must[string](t)(store.IssueDeviceCookie(ctx, "ada@example.com"))
	foreign := modelstest.Must[string](t)(other.IssueDeviceCookie(ctx, "ada@example.com"))
	payload, sig, _ := strings.Cut(cookie, ".")
	raw, _ := base64.RawURLEncoding.DecodeString(payload)
	flipped := func(b []byte, i int) []byte {
		c := append([]byte(nil), b...)
		c[i] ^= 1
		return c
	}
	enc := base64.RawURLEncoding.EncodeToString
	for name, forged := range map[string]string{
		"empty":              "",
		"no signature":       payload,
		"login altered":      enc(flipped(raw, 0)) + "." + sig,
		"nonce altered":      enc(flipped(raw, 20)) + "." + sig,
		"issue time altered": enc(flipped(raw, len(raw)-1)) + "." + sig,
		"signature altered":  payload + "." + enc(flipped(must64(t, sig), 0)),
		"truncated":          enc(raw[:len(raw)-1]) + "." + sig,
		"not base64":         "!!!." + sig,
		"another secret's":   foreign,
	} {
		if d, err := store.RecognizeDevice(ctx, forged, "ada@example.com"); err != nil || d.Known() {
			t.Errorf("%s: recognised (%v, %v)", name, d, err)
		}
	}
	if d, _ := store.RecognizeDevice(ctx, cookie, "ada@example.com"); !d.Known() {
		t.Fatal("the genuine cookie is not recognised")
	}
	clock.Advance(models.DeviceCookieLifetime + time.Second)
	if d, _ := store.RecognizeDevice(ctx, cookie, "ada@example.com"); d.Known() {
		t.Fatal("an expired cookie is recognised")
	}
}

func must64(t *testing.T, s string) []byte {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
