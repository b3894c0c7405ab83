package models

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Setting is a server-wide value kept in the database, so that every
// replica and every restart agrees on it (for example signing secrets).
type Setting struct {
	Name  string `gorm:"primaryKey;size:64"`
	Value string `gorm:"not null"`
}

// Secret returns the server-wide secret called name, creating a random
// 256-bit one on first use. Concurrent first uses agree on one value. Once
// the secret exists it is a plain read, so callers on a request path (page
// tokens) cost no write.
func (s *Store) Secret(ctx context.Context, name string) ([]byte, error) {
	var stored Setting
	err := s.read(ctx).Where("name = ?", "secret:"+name).Take(&stored).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		var b [32]byte
		_, _ = rand.Read(b[:])
		candidate := Setting{Name: "secret:" + name, Value: hex.EncodeToString(b[:])}
		err = s.write(ctx, func(tx *gorm.DB) error {
			if err := tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&candidate).Error; err != nil {
				return err
			}
			return tx.Where("name = ?", candidate.Name).Take(&stored).Error
		})
	}
	if err != nil {
		return nil, err
	}
	v, err := hex.DecodeString(stored.Value)
	if err != nil || len(v) != 32 {
		return nil, errors.Join(errors.New("setting "+stored.Name+" is corrupt"), err)
	}
	return v, nil
}

// cachedSecret is Secret read once per Store: a secret never changes once
// stored, so later uses need no database round trip.
func (s *Store) cachedSecret(ctx context.Context, name string) ([]byte, error) {
	if v, ok := s.secrets.Load(name); ok {
		return v.([]byte), nil
	}
	v, err := s.Secret(ctx, name)
	if err != nil {
		return nil, err
	}
	s.secrets.Store(name, v)
	return v, nil
}
