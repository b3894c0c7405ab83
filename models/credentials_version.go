package models

import (
	"context"
	"errors"
	"math/rand/v2"
	"strconv"
	"time"

	"gorm.io/gorm"
)

// credentialsSetting names the settings row whose value changes in the
// transaction of every change that can make a cached API key invalid: a
// key revoked, an account's status changed. Every replica reads it at most
// every credentialsCheckInterval and forgets its cached keys when it has
// changed, so a key revoked through any replica (or the CLI) is refused by
// all of them within that interval, at the cost of one indexed read per
// interval per replica rather than one per request.
const credentialsSetting = "credentials_version"

// credentialsCheckInterval bounds how long a revocation made elsewhere can
// go unnoticed by this process.
const credentialsCheckInterval = 250 * time.Millisecond

// bumpCredentials gives the credentials version a new random value inside
// tx. Random rather than a counter, so that only equality means anything
// (see AccountVersion).
func bumpCredentials(tx *gorm.DB) error {
	v := strconv.FormatInt(1+rand.Int64N(1<<62), 10)
	return tx.Exec("INSERT INTO settings (name, value) VALUES (?, ?) "+
		"ON CONFLICT (name) DO UPDATE SET value = excluded.value", credentialsSetting, v).Error
}

// syncKeyCache makes the key cache forget every key if the credentials
// version changed since it last looked, looking at most every
// credentialsCheckInterval. One request at a time reads; the others wait
// for it (bounded by their context) so none is answered from a cache that
// may hold a key revoked more than the interval ago.
func (s *Store) syncKeyCache(ctx context.Context) error {
	if !s.keys.versionDue() {
		return nil
	}
	select {
	case s.keys.checking <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-s.keys.checking }()
	if !s.keys.versionDue() {
		return nil // another request looked while this one waited
	}
	var stored Setting
	err := s.read(ctx).Where("name = ?", credentialsSetting).Take(&stored).Error
	if err != nil && !errors.Is(err, gorm.ErrRecordNotFound) {
		return translate(err)
	}
	s.keys.observeVersion(stored.Value)
	return nil
}
