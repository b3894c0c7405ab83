package models_test

import (
	"context"
	"strings"
	"testing"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// An export reads batch after batch, in order, each event once, and stops
// at AuditExportLimit; a text search looks only through the newest
// AuditSearchWindow events, so it costs that much at most.
func TestAuditExportAndSearchAreBounded(t *testing.T) {
	store := modelstest.Open(t)
	ctx := context.Background()
	owner, _ := modelstest.Owner(t, store, "ada@example.com")
	a := owner.Actor()
	n := max(models.AuditExportLimit, models.AuditSearchWindow) + 50
	seedAuditRows(t, store, a.AccountID, n)
	// The oldest seeded event names the needle: outside the window.
	var oldest models.AuditEvent
	if err := store.DB().Where("account_id = ? AND resource_name = ?", a.AccountID, "filesystem").
		Order("event_time, id").Take(&oldest).Error; err != nil {
		t.Fatal(err)
	}
	if err := store.DB().Model(&oldest).Update("additional_details", `{"name":"needle"}`).Error; err != nil {
		t.Fatal(err)
	}

	for _, newest := range []bool{false, true} {
		x, err := store.ExportAuditEvents(ctx, a, models.AuditEventsInput{NewestFirst: newest})
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		var last models.AuditEvent
		err = x.Each(ctx, func(ev models.AuditEvent) error {
			if seen[ev.ID] {
				t.Fatalf("event %s exported twice", ev.ID)
			}
			order := ev.EventTime.Compare(last.EventTime)
			if order == 0 {
				order = strings.Compare(ev.ID, last.ID)
			}
			if len(seen) > 0 && (newest && order >= 0 || !newest && order <= 0) {
				t.Fatalf("newest first %v: %v %s after %v %s", newest, ev.EventTime, ev.ID, last.EventTime, last.ID)
			}
			seen[ev.ID], last = true, ev
			return nil
		})
		if err != nil || len(seen) != models.AuditExportLimit {
			t.Fatalf("newest first %v: exported %d events, %v; want the cap, %d", newest, len(seen), err, models.AuditExportLimit)
		}
	}

	page, err := store.AuditEvents(ctx, a, models.AuditEventsInput{Text: "needle"})
	if err != nil || len(page.Events) != 0 {
		t.Fatalf("a needle older than the window: %v, %v", page, err)
	}
	// An end moves the window back to it.
	page, err = store.AuditEvents(ctx, a, models.AuditEventsInput{Text: "NEEDLE", End: oldest.EventTime.Format("2006-01-02T15:04:05.999999Z07:00")})
	if err != nil || len(page.Events) != 1 || page.Events[0].ID != oldest.ID {
		t.Fatalf("the needle within the window: %+v, %v", page, err)
	}
}
