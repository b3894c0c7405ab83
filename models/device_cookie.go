package models

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"strings"
	"time"
)

// Device cookies, as OWASP's "Slow Down Online Guessing Attacks with
// Device Cookies" describes: a browser that signs in gets a cookie naming
// the login (a keyed hash of the email) and a nonce, signed with a secret
// every replica reads from the settings table. A later attempt on that
// login presenting it is a known device: the dashboard throttles it by its
// own bucket, not the account's that strangers drain, and the password
// hashers serve it first. Nothing is stored per device, so a cookie
// cannot be revoked; it lapses after DeviceCookieLifetime.

// DeviceCookieLifetime is how long a device cookie is honoured after it
// was issued; each sign-in issues a new one.
const DeviceCookieLifetime = 365 * 24 * time.Hour

const deviceCookieSecret = "device-cookies"

// A cookie's payload: login tag, nonce, issue time (Unix seconds).
const (
	deviceLoginLen   = 16
	deviceNonceLen   = 16
	devicePayloadLen = deviceLoginLen + deviceNonceLen + 8
)

// Device is what a browser's device cookie says of it: a browser that
// has signed in to one login before (Known), or, the zero Device, a
// stranger. Only RecognizeDevice makes a known one.
type Device struct {
	email string // normalised
	nonce string
}

// Known reports whether the cookie proved the browser signed in before.
func (d Device) Known() bool { return d.nonce != "" }

// LimitKey names a known device cookie's own bucket in a rate limiter:
// its failures lock out this cookie and no other.
func (d Device) LimitKey() string { return "device:" + d.nonce }

// IssueDeviceCookie returns a new device cookie for the login email, to
// hand the browser after it signed in with the right password.
func (s *Store) IssueDeviceCookie(ctx context.Context, email string) (string, error) {
	key, err := s.cachedSecret(ctx, deviceCookieSecret)
	if err != nil {
		return "", err
	}
	payload := make([]byte, 0, devicePayloadLen)
	payload = append(payload, deviceLoginTag(key, email)...)
	payload = append(payload, randomBytes(deviceNonceLen)...)
	payload = binary.BigEndian.AppendUint64(payload, uint64(s.Now().Unix()))
	return base64.RawURLEncoding.EncodeToString(payload) + "." +
		base64.RawURLEncoding.EncodeToString(deviceCookieMAC(key, payload)), nil
}

// RecognizeDevice returns the known device a device cookie stands for
// when the cookie is this server's, unaltered, unexpired and issued for
// the login email; otherwise the zero Device, a stranger. The error is
// only for a secret that cannot be read.
func (s *Store) RecognizeDevice(ctx context.Context, cookie, email string) (Device, error) {
	encoded, sig, ok := strings.Cut(cookie, ".")
	if !ok {
		return Device{}, nil
	}
	payload, err1 := base64.RawURLEncoding.DecodeString(encoded)
	got, err2 := base64.RawURLEncoding.DecodeString(sig)
	if err1 != nil || err2 != nil || len(payload) != devicePayloadLen {
		return Device{}, nil
	}
	key, err := s.cachedSecret(ctx, deviceCookieSecret)
	if err != nil {
		return Device{}, err
	}
	if !hmac.Equal(got, deviceCookieMAC(key, payload)) ||
		!hmac.Equal(payload[:deviceLoginLen], deviceLoginTag(key, email)) {
		return Device{}, nil
	}
	issued := time.Unix(int64(binary.BigEndian.Uint64(payload[deviceLoginLen+deviceNonceLen:])), 0)
	if s.Now().Sub(issued) > DeviceCookieLifetime {
		return Device{}, nil
	}
	nonce := payload[deviceLoginLen : deviceLoginLen+deviceNonceLen]
	return Device{email: normalizeEmail(email), nonce: hex.EncodeToString(nonce)}, nil
}

// knows reports whether d was recognised for the login email.
func (d Device) knows(email string) bool { return d.Known() && d.email == normalizeEmail(email) }

// deviceLoginTag names the login in a cookie without spelling the email
// out; keyed, so a cookie for one login cannot be made for another.
func deviceLoginTag(key []byte, email string) []byte {
	return mac(key, []byte("device-login\x00"+normalizeEmail(email)))
}

func deviceCookieMAC(key, payload []byte) []byte {
	return mac(key, append([]byte("device-cookie\x00"), payload...))
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return b
}
