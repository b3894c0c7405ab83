package web

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"

	"github.com/gofiber/fiber/v2"
)

// A one-time value carries a form's result across its redirect, for the
// next page to show once (post/redirect/get), when the result may not be
// shown twice or kept: a generated private key. It is sealed with a key
// derived from the session's cookie, which the database holds only a hash
// of, so the row alone reveals nothing; it is taken (and forgotten) by the
// page that shows it.

// onceKind names what a one-time value holds, so a page takes only its own.
type onceKind string

const onceGeneratedKey onceKind = "generated-ssh-key"

type onceEnvelope struct {
	Kind  onceKind        `json:"kind"`
	Value json.RawMessage `json:"value"`
}

// setOnce seals v for the signed-in session's next page of kind.
func (h *Handlers) setOnce(c *fiber.Ctx, kind onceKind, v any) error {
	sess, _ := signedIn(c)
	if sess == nil {
		return errors.New("one-time value without a session")
	}
	value, err := json.Marshal(v)
	if err != nil {
		return err
	}
	plain, err := json.Marshal(onceEnvelope{Kind: kind, Value: value})
	if err != nil {
		return err
	}
	aead, err := onceAEAD(c)
	if err != nil {
		return err
	}
	nonce := make([]byte, aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return err
	}
	sealed := aead.Seal(nonce, nonce, plain, []byte(sess.ID))
	return h.store.SetSessionOnce(c.UserContext(), sess.ID, base64.RawStdEncoding.EncodeToString(sealed))
}

// takeOnce fills v with the session's one-time value of kind and reports
// whether there was one. A value of another kind is left for its page; one
// that does not open (sealed for an older cookie) is dropped.
func (h *Handlers) takeOnce(c *fiber.Ctx, kind onceKind, v any) (bool, error) {
	sess, _ := signedIn(c)
	if sess == nil || sess.Once == nil {
		return false, nil
	}
	aead, err := onceAEAD(c)
	if err != nil {
		return false, err
	}
	sealed, err := base64.RawStdEncoding.DecodeString(*sess.Once)
	var env onceEnvelope
	if err == nil && len(sealed) > aead.NonceSize() {
		n := aead.NonceSize()
		plain, openErr := aead.Open(nil, sealed[:n], sealed[n:], []byte(sess.ID))
		if openErr == nil && json.Unmarshal(plain, &env) == nil && env.Kind != kind {
			return false, nil
		}
	}
	taken, err := h.store.TakeSessionOnce(c.UserContext(), sess.ID)
	if err != nil || taken != *sess.Once || env.Kind != kind {
		return false, err // taken by another request meanwhile, or unreadable
	}
	return json.Unmarshal(env.Value, v) == nil, nil
}

// onceAEAD is AES-256-GCM keyed by the session's cookie.
func onceAEAD(c *fiber.Ctx) (cipher.AEAD, error) {
	key := sha256.Sum256([]byte("cloudplane one-time value\x00" + c.Cookies(SessionCookie)))
	block, err := aes.NewCipher(key[:])
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}
