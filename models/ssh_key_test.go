package models_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"cloudplane/models"
)

const edKey = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAICN+lJwsONkwrdsSnQsu1ydUkIuIg5oOC+Eslvmtt60T"

func TestCreateSSHKeyWithPublicKey(t *testing.T) {
	f := newFixture(t)
	f.clock.Advance(time.Second) // after the fixture's key, in the audit log
	in := models.CreateSSHKeyInput{Name: "laptop", PublicKey: ptr("  " + edKey + "   me@laptop\n")}
	k, private, err := f.store.CreateSSHKey(context.Background(), f.alice, in)
	if err != nil || private != "" {
		t.Fatalf("create: %v (private %q)", err, private)
	}
	if k.PublicKey != edKey+" me@laptop" || !models.IsID(k.ID) {
		t.Fatalf("stored %+v", k)
	}
	// As `ssh-keygen -lf` prints it for edKey.
	if fp := k.Fingerprint(); fp != "SHA256:7qVS2loUOTHon9DFMZWMNAKRd1WZIlHxBNWUJekuTno" {
		t.Fatalf("fingerprint %q", fp)
	}
	evs := f.events(t, f.alice, "ssh_key")
	last := evs[len(evs)-1]
	if last.Action != "created" || last.ResourceLRNs[0] != "lrn:cloud:ssh_key:"+k.ID || last.AdditionalDetails.Map()["generated"] != false {
		t.Fatalf("event %+v", last)
	}
}

// A generated pair is usable: the private key parses and matches the
// stored public key, and the private key is stored nowhere.
func TestCreateSSHKeyGeneratesAPair(t *testing.T) {
	f := newFixture(t)
	k, private, err := f.store.CreateSSHKey(context.Background(), f.alice, models.CreateSSHKeyInput{Name: "generated"})
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.ParsePrivateKey([]byte(private))
	if err != nil {
		t.Fatalf("private key %q: %v", private, err)
	}
	if got := strings.TrimSpace(string(ssh.MarshalAuthorizedKey(signer.PublicKey()))); got != k.PublicKey {
		t.Fatalf("public %q does not match private key's %q", k.PublicKey, got)
	}
	var rows []map[string]any
	f.store.DB().Table("ssh_keys").Where("id = ?", k.ID).Find(&rows)
	for col, v := range rows[0] {
		if s, ok := v.(string); ok && strings.Contains(s, "PRIVATE KEY") {
			t.Fatalf("column %s holds the private key", col)
		}
	}
}

func TestCreateSSHKeyRefusals(t *testing.T) {
	f := newFixture(t) // alice already has a key named "key"
	cases := []struct {
		name  string
		in    models.CreateSSHKeyInput
		field string
	}{
		{"no name", models.CreateSSHKeyInput{}, "name"},
		{"long name", models.CreateSSHKeyInput{Name: strings.Repeat("n", 65)}, "name"},
		{"control character", models.CreateSSHKeyInput{Name: "a\nb"}, "name"},
		{"name taken in the account", models.CreateSSHKeyInput{Name: "key"}, "name"},
		{"empty public key", models.CreateSSHKeyInput{Name: "x", PublicKey: ptr("")}, "public_key"},
		{"not a key", models.CreateSSHKeyInput{Name: "x", PublicKey: ptr("hello world")}, "public_key"},
		{"private key", models.CreateSSHKeyInput{Name: "x", PublicKey: ptr("-----BEGIN OPENSSH PRIVATE KEY-----")}, "public_key"},
		{"two keys", models.CreateSSHKeyInput{Name: "x", PublicKey: ptr(edKey + "\n" + edKey)}, "public_key"},
		{"options", models.CreateSSHKeyInput{Name: "x", PublicKey: ptr(`command="ls" ` + edKey)}, "public_key"},
		{"too long", models.CreateSSHKeyInput{Name: "x", PublicKey: ptr(edKey + " " + strings.Repeat("c", 4096))}, "public_key"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := f.store.CreateSSHKey(context.Background(), f.alice, tc.in)
			wantCode(t, err, models.CodeInvalidParameters)
			if e, _ := models.AsError(err); e.Fields[tc.field] == "" {
				t.Fatalf("fields %v, want %s", e.Fields, tc.field)
			}
		})
	}
	// Names are unique per account, not across accounts.
	if _, _, err := f.store.CreateSSHKey(context.Background(), f.bob, models.CreateSSHKeyInput{Name: "other"}); err != nil {
		t.Fatal(err)
	}
}

func TestDeleteSSHKey(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	keys, err := f.store.SSHKeys(ctx, f.alice)
	if err != nil || len(keys) != 1 {
		t.Fatalf("keys %v %v", keys, err)
	}
	id := f.launch(t, f.alice, launchInput("us-east-1", 1))[0]
	for _, bad := range []string{"nope", models.NewID()} {
		_, err := f.store.DeleteSSHKey(ctx, f.alice, bad)
		wantCode(t, err, models.CodeSSHKeyNotFound)
		_, err = f.store.SSHKey(ctx, f.alice, bad)
		wantCode(t, err, models.CodeSSHKeyNotFound)
	}
	_, err = f.store.DeleteSSHKey(ctx, f.bob, keys[0].ID)
	wantCode(t, err, models.CodeSSHKeyNotFound)
	_, err = f.store.SSHKey(ctx, f.bob, keys[0].ID)
	wantCode(t, err, models.CodeSSHKeyNotFound)
	if k, err := f.store.SSHKey(ctx, f.alice, keys[0].ID); err != nil || k.Name != "key" {
		t.Fatalf("SSHKey: %v %v", k, err)
	}
	f.clock.Advance(time.Second)
	if k, err := f.store.DeleteSSHKey(ctx, f.alice, keys[0].ID); err != nil || k.Name != "key" {
		t.Fatalf("deleted %v: %v", k, err)
	}
	_, err = f.store.DeleteSSHKey(ctx, f.alice, keys[0].ID)
	wantCode(t, err, models.CodeSSHKeyNotFound)
	if keys, _ := f.store.SSHKeys(ctx, f.alice); len(keys) != 0 {
		t.Fatalf("still listed: %v", keys)
	}
	// Instances launched with the key keep it.
	if d := f.instance(t, f.alice, id); len(d.SSHKeyNames) != 1 || d.SSHKeyNames[0] != "key" {
		t.Fatalf("instance keys %v", d.SSHKeyNames)
	}
	evs := f.events(t, f.alice, "ssh_key")
	if last := evs[len(evs)-1]; len(evs) != 2 || last.Action != "deleted" {
		t.Fatalf("events %+v", evs)
	}
}

func ptr[T any](v T) *T { return &v }
