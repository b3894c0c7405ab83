package modelstest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"testing"

	"github.com/go-webauthn/webauthn/protocol/webauthncbor"
	"github.com/go-webauthn/webauthn/protocol/webauthncose"
)

// Authenticator is a software WebAuthn authenticator holding one
// credential, for tests of the passkey ceremonies without a browser: it
// answers the options BeginPasskey* return as a browser would, for the
// origin it is given. Counter is the signature counter its next
// assertion carries (it is incremented first); set it to play a clone.
type Authenticator struct {
	Origin     string
	Key        *ecdsa.PrivateKey
	CredID     []byte
	UserHandle []byte
	Counter    uint32
	// NoUserVerification clears the UV flag, as an authenticator without
	// a PIN or biometrics would.
	NoUserVerification bool
}

// NewAuthenticator makes an authenticator with a fresh P-256 credential.
func NewAuthenticator(tb testing.TB, origin string) *Authenticator {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	id := make([]byte, 16)
	_, _ = rand.Read(id)
	return &Authenticator{Origin: origin, Key: key, CredID: id}
}

var b64 = base64.RawURLEncoding

type optionsJSON struct {
	PublicKey struct {
		Challenge string `json:"challenge"`
		RPID      string `json:"rpId"`
		RP        struct {
			ID string `json:"id"`
		} `json:"rp"`
		User struct {
			ID string `json:"id"`
		} `json:"user"`
	} `json:"publicKey"`
}

func (a *Authenticator) clientData(tb testing.TB, typ, challenge string) []byte {
	cd, err := json.Marshal(map[string]any{"type": typ, "challenge": challenge, "origin": a.Origin, "crossOrigin": false})
	if err != nil {
		tb.Fatal(err)
	}
	return cd
}

func (a *Authenticator) authData(rpID string, flags byte, attested []byte) []byte {
	h := sha256.Sum256([]byte(rpID))
	out := append(h[:], flags)
	out = binary.BigEndian.AppendUint32(out, a.Counter)
	return append(out, attested...)
}

func (a *Authenticator) flags() byte {
	if a.NoUserVerification {
		return 0x01 // UP
	}
	return 0x05 // UP, UV
}

// Register answers registration options (BeginPasskeyRegistration's JSON)
// with a "none" attestation, as PublicKeyCredential JSON.
func (a *Authenticator) Register(tb testing.TB, options []byte) []byte {
	tb.Helper()
	var o optionsJSON
	if err := json.Unmarshal(options, &o); err != nil {
		tb.Fatal(err)
	}
	a.UserHandle, _ = b64.DecodeString(o.PublicKey.User.ID)
	x, y := a.Key.PublicKey.X.FillBytes(make([]byte, 32)), a.Key.PublicKey.Y.FillBytes(make([]byte, 32))
	cose, err := webauthncbor.Marshal(webauthncose.EC2PublicKeyData{
		PublicKeyData: webauthncose.PublicKeyData{KeyType: int64(webauthncose.EllipticKey), Algorithm: int64(webauthncose.AlgES256)},
		Curve:         int64(webauthncose.P256), XCoord: x, YCoord: y})
	if err != nil {
		tb.Fatal(err)
	}
	attested := make([]byte, 16) // AAGUID: zero
	attested = binary.BigEndian.AppendUint16(attested, uint16(len(a.CredID)))
	attested = append(append(attested, a.CredID...), cose...)
	obj, err := webauthncbor.Marshal(map[string]any{"fmt": "none", "attStmt": map[string]any{},
		"authData": a.authData(o.PublicKey.RP.ID, a.flags()|0x40, attested)})
	if err != nil {
		tb.Fatal(err)
	}
	return a.credentialJSON(tb, map[string]any{
		"clientDataJSON":    b64.EncodeToString(a.clientData(tb, "webauthn.create", o.PublicKey.Challenge)),
		"attestationObject": b64.EncodeToString(obj), "transports": []string{"internal"}})
}

// Assert answers assertion options (BeginPasskeySignIn's or
// BeginPasskeyCheck's JSON) with the counter incremented, as
// PublicKeyCredential JSON.
func (a *Authenticator) Assert(tb testing.TB, options []byte) []byte {
	tb.Helper()
	var o optionsJSON
	if err := json.Unmarshal(options, &o); err != nil {
		tb.Fatal(err)
	}
	a.Counter++
	auth := a.authData(o.PublicKey.RPID, a.flags(), nil)
	cd := a.clientData(tb, "webauthn.get", o.PublicKey.Challenge)
	sum := sha256.Sum256(cd)
	digest := sha256.Sum256(append(append([]byte{}, auth...), sum[:]...))
	sig, err := ecdsa.SignASN1(rand.Reader, a.Key, digest[:])
	if err != nil {
		tb.Fatal(err)
	}
	return a.credentialJSON(tb, map[string]any{
		"clientDataJSON": b64.EncodeToString(cd), "authenticatorData": b64.EncodeToString(auth),
		"signature": b64.EncodeToString(sig), "userHandle": b64.EncodeToString(a.UserHandle)})
}

func (a *Authenticator) credentialJSON(tb testing.TB, response map[string]any) []byte {
	out, err := json.Marshal(map[string]any{"id": b64.EncodeToString(a.CredID), "rawId": b64.EncodeToString(a.CredID),
		"type": "public-key", "response": response, "clientExtensionResults": map[string]any{}})
	if err != nil {
		tb.Fatal(err)
	}
	return out
}
