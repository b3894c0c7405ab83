package models

import "time"

// Filesystem is a network filesystem in one region, mounted on instances
// at /lambda/nfs/<name>. Names are unique within an account.
type Filesystem struct {
	ID              string    `gorm:"primaryKey;size:32"`
	AccountID       string    `gorm:"size:32;not null;uniqueIndex:idx_filesystems_account_name,priority:1"`
	Name            string    `gorm:"size:60;not null;uniqueIndex:idx_filesystems_account_name,priority:2"`
	RegionName      string    `gorm:"size:32;not null"`
	CreatedByUserID string    `gorm:"size:32;not null"`
	BytesUsed       int64     `gorm:"not null"`
	CreatedAt       time.Time `gorm:"not null"`
	UpdatedAt       time.Time `gorm:"not null"`
}
