package api_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"cloudplane/models"
)

type apiUsage struct {
	Data struct {
		Start, End, AsOf string
		TotalCents       int64 `json:"total_cents"`
		Days             []struct {
			Date      string `json:"date"`
			CostCents int64  `json:"cost_cents"`
		} `json:"days"`
		InstanceTypes []struct {
			InstanceTypeName string `json:"instance_type_name"`
			CostCents        int64  `json:"cost_cents"`
		} `json:"instance_types"`
		Instances []struct {
			ID        string `json:"id"`
			CostCents int64  `json:"cost_cents"`
		} `json:"instances"`
	} `json:"data"`
	PageToken *string `json:"page_token"`
}

// seedInstances writes n instances of the env's owner launched a minute
// apart from launch, each running an hour at 60 cents, so each costs 60.
func (e *env) seedInstances(n int, launch time.Time) {
	e.t.Helper()
	rows := make([]models.Instance, n)
	for i := range rows {
		at := launch.Add(time.Duration(i) * time.Minute)
		end := at.Add(time.Hour)
		rows[i] = models.Instance{ID: models.NewID(), AccountID: *e.owner.AccountID, Name: "i", RegionName: "us-east-1",
			InstanceTypeName: "gpu_1x_a10", Status: models.InstanceTerminated, IP: "198.51.100.1", PrivateIP: "10.0.0.1",
			Hostname: "h", SSHKeyNames: []string{}, Tags: []models.InstanceTag{}, CreatedAt: at, UpdatedAt: at,
			PriceCentsPerHour: 60, TerminatedAt: &end}
	}
	if err := e.store.DB().WithContext(context.Background()).CreateInBatches(rows, 500).Error; err != nil {
		e.t.Fatal(err)
	}
}

// TestUsagePagesAddUpWithAReadOnlyKey pages a read-only key through 230
// instances: each comes once by its id, and the rows sum to total_cents,
// as do the days and the types.
func TestUsagePagesAddUpWithAReadOnlyKey(t *testing.T) {
	e := newEnv(t)
	e.clock.Set(time.Date(2026, 3, 15, 0, 0, 0, 0, time.UTC))
	e.seedInstances(230, time.Date(2026, 2, 28, 23, 0, 0, 0, time.UTC)) // over a month end
	ro := e.newKey(models.CreateAPIKeyInput{Name: "billing", ReadOnly: true})
	q := url.Values{"start": {"2026-02-01"}, "end": {"2026-03-31"}}
	seen := map[string]bool{}
	var rows, total int64
	pages := 0
	for {
		var u apiUsage
		e.doAs(ro, http.MethodGet, "/api/v1/usage?"+q.Encode(), nil).expect(http.StatusOK).decode(&u)
		pages++
		if pages == 1 {
			total = u.Data.TotalCents
			if u.Data.Start != "2026-02-01T00:00:00Z" || u.Data.End != "2026-04-01T00:00:00Z" || len(u.Data.Days) != 59 {
				t.Fatalf("period %s – %s, %d days", u.Data.Start, u.Data.End, len(u.Data.Days))
			}
			var days, types int64
			for _, d := range u.Data.Days {
				days += d.CostCents
			}
			for _, ty := range u.Data.InstanceTypes {
				types += ty.CostCents
			}
			if days != total || types != total {
				t.Fatalf("total %d, days %d, types %d", total, days, types)
			}
		}
		for _, in := range u.Data.Instances {
			if seen[in.ID] || !models.IsID(in.ID) {
				t.Fatalf("instance %q twice or malformed", in.ID)
			}
			seen[in.ID] = true
			rows += in.CostCents
		}
		if u.PageToken == nil {
			break
		}
		q.Set("page_token", *u.PageToken)
	}
	if pages != 3 || len(seen) != 230 || total != 230*60 || rows != total {
		t.Fatalf("%d pages, %d instances, total %d, rows sum to %d", pages, len(seen), total, rows)
	}
}

func TestUsageRefusesBadParametersNamingTheField(t *testing.T) {
	e := newEnv(t)
	for _, c := range []struct{ query, field string }{
		{"start=last-week", "start"},
		{"start=2026-01-01&end=2026-02-30", "end"},
		{"start=2026-03-01&end=2026-01-01", "end"},
		{"start=2024-01-01&end=2026-01-01", "end"},
		{"page_token=abc", "page_token"},
	} {
		r := e.do(http.MethodGet, "/api/v1/usage?"+c.query, nil).expectError(http.StatusBadRequest, models.CodeInvalidParameters)
		if !strings.Contains(r.message(), c.field) {
			t.Errorf("%s: message %q does not name %s", c.query, r.message(), c.field)
		}
	}
	e.doAs("", http.MethodGet, "/api/v1/usage", nil).expectError(http.StatusUnauthorized, models.CodeInvalidAPIKey)
}

// An account without instances answers the current month, all zeros.
func TestUsageOfAnEmptyAccountIsTheCurrentMonth(t *testing.T) {
	e := newEnv(t)
	e.clock.Set(time.Date(2028, 2, 10, 12, 0, 0, 0, time.UTC))
	var u apiUsage
	e.do(http.MethodGet, "/api/v1/usage", nil).expect(http.StatusOK).decode(&u)
	if u.Data.Start != "2028-02-01T00:00:00Z" || len(u.Data.Days) != 29 || u.Data.TotalCents != 0 ||
		u.Data.Instances == nil || u.PageToken != nil {
		t.Fatalf("%+v", u)
	}
}
