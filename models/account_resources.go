package models

import (
	"fmt"

	"gorm.io/gorm"
)

// Helpers for the objects an account owns (filesystems, rulesets): finding
// one by id, counting them against a quota, and telling whether a running
// instance holds one.

// takeOwned loads into dst the row of dst's table with id in the account,
// or answers gorm.ErrRecordNotFound. Malformed ids never reach the
// database.
func takeOwned(tx *gorm.DB, dst any, accountID, id string) error {
	if !IsID(id) {
		return gorm.ErrRecordNotFound
	}
	return tx.Where("account_id = ? AND id = ?", accountID, id).Take(dst).Error
}

// checkQuota fails with CodeQuotaExceeded when the account already has
// quota rows of model's table. Callers hold the account lock, so that
// concurrent creates count each other.
func checkQuota(tx *gorm.DB, model any, accountID string, quota int, what string) error {
	var n int64
	if err := tx.Model(model).Where("account_id = ?", accountID).Count(&n).Error; err != nil {
		return err
	}
	if n < int64(quota) {
		return nil
	}
	return &Error{Code: CodeQuotaExceeded,
		Message:    fmt.Sprintf("The account has reached its quota of %d %s", quota, what),
		Suggestion: fmt.Sprintf("Delete %s you no longer need, or contact support to raise the quota", what)}
}

// heldSQL is an SQL condition, true when the attachment table (instance_id,
// column) links the object whose id is idExpr to an instance that holds
// it. It takes one argument: instanceInUseStatuses.
func heldSQL(table, column, idExpr string) string {
	return "EXISTS (SELECT 1 FROM " + table + " a JOIN instances i ON i.id = a.instance_id" +
		" WHERE a." + column + " = " + idExpr + " AND i.status IN ?)"
}

// heldByRunningInstance reports whether an instance that holds its
// attachments (booting, active or unhealthy) is linked to id by table.
func heldByRunningInstance(tx *gorm.DB, table, column, id string) (bool, error) {
	var held bool
	err := tx.Raw("SELECT "+heldSQL(table, column, "?"), id, instanceInUseStatuses).Scan(&held).Error
	return held, err
}
