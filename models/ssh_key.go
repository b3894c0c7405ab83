package models

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/crypto/ssh"
	"gorm.io/gorm"
)

// SSHKey is a public key that instances are launched with, named uniquely
// within an account. Private keys are never stored. Keyed by account, then
// id (migration 0035), so an account's are stored together.
type SSHKey struct {
	AccountID string    `gorm:"primaryKey;size:32;not null;uniqueIndex:idx_ssh_keys_account_name,priority:1;index:idx_ssh_keys_search,priority:1"`
	ID        string    `gorm:"primaryKey;size:32;not null;uniqueIndex:idx_ssh_keys_id"`
	Name      string    `gorm:"size:64;not null;uniqueIndex:idx_ssh_keys_account_name,priority:2;index:idx_ssh_keys_search,expression:lower(name),priority:2"`
	PublicKey string    `gorm:"size:4096;not null"`
	CreatedAt time.Time `gorm:"not null"`
}

// Fingerprint is the key's SHA256 fingerprint, as `ssh-keygen -l` prints
// it, so that people can tell their keys apart; "" if the stored key does
// not parse (every key is parsed before it is stored).
func (k *SSHKey) Fingerprint() string {
	pub, _, _, _, err := ssh.ParseAuthorizedKey([]byte(k.PublicKey))
	if err != nil {
		return ""
	}
	return ssh.FingerprintSHA256(pub)
}

// MaxPublicKeyLength bounds an uploaded public key, as the reference does.
const MaxPublicKeyLength = 4096

// CreateSSHKeyInput names a new key and gives its public half, or leaves
// PublicKey nil to have a pair generated.
type CreateSSHKeyInput struct {
	Name      string  `json:"name"`
	PublicKey *string `json:"public_key"`
}

// Validate checks the name and parses the public key, which it rewrites
// to the canonical one-line form "<type> <base64>[ <comment>]".
func (in *CreateSSHKeyInput) Validate() error {
	var f FieldErrors
	validateSSHKeyName(&f, "name", in.Name)
	if in.PublicKey != nil && checkLine(&f, "public_key", strings.TrimSpace(*in.PublicKey)) {
		key, msg := canonicalPublicKey(*in.PublicKey)
		if msg != "" {
			f.Add("public_key", msg)
		}
		in.PublicKey = &key
	}
	return f.Err()
}

func validateSSHKeyName(f *FieldErrors, field, name string) {
	switch n := utf8.RuneCountInString(name); {
	case n == 0:
		f.Add(field, "is required")
	case n > 64:
		f.Add(field, fmt.Sprintf("must be at most 64 characters, got %d", n))
	default:
		checkLine(f, field, name)
	}
}

// canonicalPublicKey parses one authorized_keys line without options and
// returns it in canonical form, or a reason it is not acceptable.
func canonicalPublicKey(s string) (string, string) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return s, "must not be empty; leave it out to have a key pair generated"
	case len(s) > MaxPublicKeyLength:
		return s, fmt.Sprintf("must be at most %d characters, got %d", MaxPublicKeyLength, len(s))
	}
	pub, comment, options, rest, err := ssh.ParseAuthorizedKey([]byte(s))
	switch {
	case err != nil:
		return s, "is not an OpenSSH public key (expected e.g. \"ssh-ed25519 AAAA... comment\")"
	case len(options) > 0:
		return s, "must be a bare public key, without authorized_keys options"
	case len(strings.TrimSpace(string(rest))) > 0:
		return s, "must be a single public key"
	}
	key := strings.TrimSpace(string(ssh.MarshalAuthorizedKey(pub)))
	if comment != "" {
		key += " " + comment
	}
	return key, ""
}

// generateKeyPair makes an ed25519 pair and returns the public key in
// authorized_keys form and the private key in OpenSSH PEM form.
func generateKeyPair() (public, private string, err error) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return "", "", err
	}
	sshPub, err := ssh.NewPublicKey(pub)
	if err != nil {
		return "", "", err
	}
	block, err := ssh.MarshalPrivateKey(priv, "")
	if err != nil {
		return "", "", err
	}
	return strings.TrimSpace(string(ssh.MarshalAuthorizedKey(sshPub))), string(pem.EncodeToMemory(block)), nil
}

// CreateSSHKey adds a key to the actor's account. Without a public key it
// generates a pair and returns the private key, which is not stored and
// cannot be shown again. A name already used in the account is
// CodeInvalidParameters naming "name" (the reference has no duplicate code
// here). Records ssh_key/created.
func (s *Store) CreateSSHKey(ctx context.Context, actor Actor, in CreateSSHKeyInput) (*SSHKey, string, error) {
	var private string
	k, err := createInAccount(ctx, s, actor, in.Validate, func(accountID, id string) (*SSHKey, accountCreate, error) {
		k := &SSHKey{ID: id, AccountID: accountID, Name: in.Name, CreatedAt: s.Now()}
		if in.PublicKey != nil {
			k.PublicKey = *in.PublicKey
		} else {
			var err error
			if k.PublicKey, private, err = generateKeyPair(); err != nil {
				return nil, accountCreate{}, err
			}
		}
		return k, accountCreate{resource: "ssh_key",
			duplicate: InvalidField("name", fmt.Sprintf("an SSH key named %q already exists in this account", in.Name)),
			details:   map[string]any{"name": k.Name, "generated": private != ""}}, nil
	})
	if err != nil {
		return nil, "", err
	}
	return k, private, nil
}

// SSHKeys lists the actor's account's keys by name.
func (s *Store) SSHKeys(ctx context.Context, actor Actor) ([]SSHKey, error) {
	accountID, err := actor.ownAccount()
	if err != nil {
		return nil, err
	}
	keys := []SSHKey{}
	err = s.read(ctx).Where("account_id = ?", accountID).Order("name").Find(&keys).Error
	return keys, err
}

// SSHKey returns a key of the actor's account (CodeSSHKeyNotFound for any
// other id), for the dashboard to name it before deleting it.
func (s *Store) SSHKey(ctx context.Context, actor Actor, id string) (*SSHKey, error) {
	accountID, err := actor.ownAccount()
	if err != nil {
		return nil, err
	}
	return sshKeyByID(s.read(ctx), accountID, id)
}

// DeleteSSHKey removes a key of the actor's account (CodeSSHKeyNotFound for
// any other id) and returns it. Instances launched with it keep it. Records
// ssh_key/deleted.
func (s *Store) DeleteSSHKey(ctx context.Context, actor Actor, id string) (*SSHKey, error) {
	accountID, err := actor.operates()
	if err != nil {
		return nil, err
	}
	var k *SSHKey
	err = s.write(ctx, func(tx *gorm.DB) error {
		if k, err = sshKeyByID(tx, accountID, id); err != nil {
			return err
		}
		// A concurrent delete of the same key finds no row here, so only
		// one of them records the change.
		if res := tx.Delete(k); res.Error != nil {
			return res.Error
		} else if res.RowsAffected == 0 {
			return sshKeyNotFound(id)
		}
		return s.audit(tx, actor, accountID, "ssh_key", "deleted", []string{lrn("ssh_key", k.ID)},
			map[string]any{"name": k.Name})
	})
	if err != nil {
		return nil, err
	}
	return k, nil
}

// sshKeyByID finds a key of the account by id.
func sshKeyByID(db *gorm.DB, accountID, id string) (*SSHKey, error) {
	if !IsID(id) {
		return nil, sshKeyNotFound(id)
	}
	var k SSHKey
	err := db.Where("account_id = ? AND id = ?", accountID, id).Take(&k).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, sshKeyNotFound(id)
	}
	return &k, err
}

// sshKeyNotFound is the 404 of an SSH key named by id. A launch naming a
// key that does not exist answers CodeNotFound instead, as the reference
// declares for the launch.
func sshKeyNotFound(id string) error {
	return notFoundAs(CodeSSHKeyNotFound, "SSH key", id)
}

// sshKeyByName finds a key of the account by its exact name.
func sshKeyByName(tx *gorm.DB, accountID, name string) (*SSHKey, error) {
	var k SSHKey
	err := tx.Where("account_id = ? AND name = ?", accountID, name).Take(&k).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, NotFound("SSH key", name)
	}
	return &k, err
}
