package models

import (
	"context"

	"github.com/go-gormigrate/gormigrate/v2"
	"gorm.io/gorm"
)

// migrations is the schema's history, applied in order and recorded in
// the migrations table. Never edit a migration that has shipped: add one.
var migrations = []*gormigrate.Migration{
	{
		ID: "0001_initial",
		Migrate: func(tx *gorm.DB) error {
			return tx.AutoMigrate(initialSchema()...)
		},
	},
}

// initialSchema lists the tables of the first release.
func initialSchema() []any {
	return []any{
		&Setting{}, &Account{}, &User{}, &APIKey{}, &AuditEvent{},
		&Filesystem{}, &FirewallRuleset{},
		&Instance{}, &InstanceFilesystem{}, &InstanceRuleset{},
		&SSHKey{}, &CapacityLock{}, &AccountVersion{},
		&Session{},
		&Ticket{}, &TicketComment{},
		&WebhookEndpoint{}, &WebhookEvent{}, &WebhookDelivery{}, &WebhookAttempt{},
	}
}

// Migrate brings the schema up to date. It is safe to run on every start
// and from several processes: each migration runs once.
func Migrate(ctx context.Context, db *gorm.DB) error {
	m := gormigrate.New(db.WithContext(ctx), &gormigrate.Options{
		TableName:                 "schema_migrations",
		IDColumnName:              "id",
		IDColumnSize:              64,
		UseTransaction:            true,
		ValidateUnknownMigrations: true,
	}, migrations)
	return m.Migrate()
}
