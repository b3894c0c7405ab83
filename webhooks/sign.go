package webhooks

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strings"

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
