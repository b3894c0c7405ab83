package models

import "time"

// FirewallRuleset is a named list of inbound rules in one region that
// instances can be launched with.
type FirewallRuleset struct {
	ID         string         `gorm:"primaryKey;size:32"`
	AccountID  string         `gorm:"size:32;not null;index"`
	Name       string         `gorm:"size:64;not null"`
	RegionName string         `gorm:"size:32;not null"`
	Rules      []FirewallRule `gorm:"serializer:json;not null"`
	CreatedAt  time.Time      `gorm:"not null"`
	UpdatedAt  time.Time      `gorm:"not null"`
}
