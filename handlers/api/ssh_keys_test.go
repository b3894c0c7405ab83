package api_test

import (
	"net/http"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

const edPublicKey = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAICN+lJwsONkwrdsSnQsu1ydUkIuIg5oOC+Eslvmtt60T noname"

type apiSSHKey struct {
	ID         string  `json:"id"`
	Name       string  `json:"name"`
	PublicKey  string  `json:"public_key"`
	PrivateKey *string `json:"private_key"`
}

func TestCreateSSHKeyScenarios(t *testing.T) {
	e := newEnv(t)
	cases := []struct {
		name   string
		body   any
		status int
		code   models.Code
		field  string // named in the error message
	}{
		{"upload a public key", map[string]any{"name": "laptop", "public_key": edPublicKey}, http.StatusOK, "", ""},
		{"generate a pair", map[string]any{"name": "generated"}, http.StatusOK, "", ""},
		{"name taken", map[string]any{"name": "laptop"}, http.StatusBadRequest, models.CodeInvalidParameters, "name"},
		{"no name", map[string]any{"public_key": edPublicKey}, http.StatusBadRequest, models.CodeInvalidParameters, "name"},
		{"name too long", map[string]any{"name": strings.Repeat("n", 65)}, http.StatusBadRequest, models.CodeInvalidParameters, "name"},
		{"name not a string", map[string]any{"name": 7}, http.StatusBadRequest, models.CodeInvalidParameters, "name"},
		{"not a public key", map[string]any{"name": "x", "public_key": "ssh-rsa nonsense"}, http.StatusBadRequest, models.CodeInvalidParameters, "public_key"},
		{"empty public key", map[string]any{"name": "x", "public_key": ""}, http.StatusBadRequest, models.CodeInvalidParameters, "public_key"},
		{"no body", nil, http.StatusBadRequest, models.CodeInvalidParameters, "body"},
		{"malformed JSON", `{"name":`, http.StatusBadRequest, models.CodeInvalidParameters, "JSON"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := e.do(http.MethodPost, "/api/v1/ssh-keys", tc.body)
			if tc.code != "" {
				r.expectError(tc.status, tc.code)
				if !strings.Contains(r.message(), tc.field) {
					t.Fatalf("message %q does not name %s", r.message(), tc.field)
				}
				return
			}
			var k apiSSHKey
			r.expect(tc.status).data(&k)
			if !models.IsID(k.ID) || k.PublicKey == "" {
				t.Fatalf("key %+v", k)
			}
		})
	}

	var keys []apiSSHKey
	e.do(http.MethodGet, "/api/v1/ssh-keys", nil).expect(http.StatusOK).data(&keys)
	if len(keys) != 2 || keys[1].Name != "laptop" || keys[1].PublicKey != edPublicKey || keys[0].PrivateKey != nil {
		t.Fatalf("listed %+v", keys)
	}
}

func TestGeneratedSSHKeyIsShownOnce(t *testing.T) {
	e := newEnv(t)
	var k apiSSHKey
	e.do(http.MethodPost, "/api/v1/ssh-keys", map[string]any{"name": "gen"}).expect(http.StatusOK).data(&k)
	if k.PrivateKey == nil {
		t.Fatal("no private key")
	}
	signer, err := ssh.ParsePrivateKey([]byte(*k.PrivateKey))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(ssh.MarshalAuthorizedKey(signer.PublicKey()))); got != k.PublicKey {
		t.Fatalf("public key %q, private key's %q", k.PublicKey, got)
	}
	r := e.do(http.MethodGet, "/api/v1/ssh-keys", nil).expect(http.StatusOK)
	if strings.Contains(string(r.Body), "PRIVATE") {
		t.Fatalf("listing shows the private key: %s", r.Body)
	}
}

func TestDeleteSSHKeyScenarios(t *testing.T) {
	e := newEnv(t)
	_, otherKey := modelstest.Owner(t, e.store, "other@example.com")
	var mine, theirs apiSSHKey
	e.do(http.MethodPost, "/api/v1/ssh-keys", map[string]any{"name": "mine"}).expect(http.StatusOK).data(&mine)
	e.doAs(otherKey, http.MethodPost, "/api/v1/ssh-keys", map[string]any{"name": "theirs"}).expect(http.StatusOK).data(&theirs)

	cases := []struct {
		name   string
		id     string
		status int
	}{
		{"another account's key", theirs.ID, http.StatusNotFound},
		{"unknown id", models.NewID(), http.StatusNotFound},
		{"malformed id", "not-an-id", http.StatusNotFound},
		{"own key", mine.ID, http.StatusOK},
		{"own key again", mine.ID, http.StatusNotFound},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := e.do(http.MethodDelete, "/api/v1/ssh-keys/"+tc.id, nil)
			if tc.status != http.StatusOK {
				r.expectError(tc.status, models.CodeSSHKeyNotFound)
				return
			}
			if r.expect(http.StatusOK); strings.TrimSpace(string(r.Body)) != `{"data":{}}` {
				t.Fatalf("body %s", r.Body)
			}
		})
	}
	var left []apiSSHKey
	e.doAs(otherKey, http.MethodGet, "/api/v1/ssh-keys", nil).expect(http.StatusOK).data(&left)
	if len(left) != 1 || left[0].ID != theirs.ID {
		t.Fatalf("the other account's keys: %+v", left)
	}
}
