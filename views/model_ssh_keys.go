package views

import "time"

// SSHKeys is the SSH keys page.
type SSHKeys struct {
	Keys      []SSHKey
	Form      Form
	Generated *GeneratedKey // set right after a pair was generated
	CSRF      string
}

// SSHKey is one row of the keys table.
type SSHKey struct {
	ID          string
	Name        string
	Type        string // ssh-ed25519, ssh-rsa...
	Fingerprint string
	Created     time.Time
}

// GeneratedKey is a pair just generated: the private key is shown in
// this one answer and stored nowhere.
type GeneratedKey struct {
	Name       string
	PrivateKey string
	FileName   string // suggested name for the download
}
