package webhooks

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strings"
	"time"

	"cloudplane/models"
)

// Sign returns the Standard Webhooks signature of a message: "v1," and
// the base64 HMAC-SHA256, keyed with the endpoint's secret (whsec_ and
// base64), of "<id>.<timestamp>.<body>". Receivers verify it with any
// Standard Webhooks library.
func Sign(secret, id, timestamp string, body []byte) (string, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, models.WebhookSecretPrefix))
	if err != nil || len(key) == 0 {
		return "", errors.New("the endpoint's signing secret is not whsec_<base64>")
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + timestamp + "."))
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil)), nil
}

// SignatureHeader is the webhook-signature value for a delivery: one
// signature per secret, separated by spaces, as Standard Webhooks allows;
// a receiver accepts the message if any one verifies with a secret it
// holds. During a rotation the new secret signs first, then the old.
func SignatureHeader(secrets []string, id, timestamp string, body []byte) (string, error) {
	sigs := make([]string, 0, len(secrets))
	for _, secret := range secrets {
		sig, err := Sign(secret, id, timestamp, body)
		if err != nil {
			return "", err
		}
		sigs = append(sigs, sig)
	}
	return strings.Join(sigs, " "), nil
}

// signingSecrets are the secrets that sign job at now: its own, and the
// one it replaced while the rotation's grace period lasts.
func signingSecrets(job models.DeliveryJob, now time.Time) []string {
	secrets := []string{job.Secret}
	if job.PreviousSecret != "" && job.PreviousSecretUntil != nil && now.Before(*job.PreviousSecretUntil) {
		secrets = append(secrets, job.PreviousSecret)
	}
	return secrets
}
