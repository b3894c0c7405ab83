package api

import (
	"time"

	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
)

// usageJSON is a period's usage: days and types in full, one page of
// instances. Amounts are integer cents.
type usageJSON struct {
	Start         string              `json:"start"`
	End           string              `json:"end"`
	AsOf          string              `json:"as_of"`
	TotalCents    int64               `json:"total_cents"`
	Days          []usageDayJSON      `json:"days"`
	InstanceTypes []usageTypeJSON     `json:"instance_types"`
	Instances     []usageInstanceJSON `json:"instances"`
}

type usageDayJSON struct {
	Date      string `json:"date"` // YYYY-MM-DD, UTC
	CostCents int64  `json:"cost_cents"`
}

type usageTypeJSON struct {
	InstanceTypeName string `json:"instance_type_name"`
	Instances        int    `json:"instances"`
	Minutes          int64  `json:"minutes"`
	CostCents        int64  `json:"cost_cents"`
}

type usageInstanceJSON struct {
	ID                string  `json:"id"`
	Name              string  `json:"name"`
	InstanceTypeName  string  `json:"instance_type_name"`
	RegionName        string  `json:"region_name"`
	PriceCentsPerHour int64   `json:"price_cents_per_hour"`
	LaunchedAt        string  `json:"launched_at"`
	TerminatedAt      *string `json:"terminated_at"`
	Minutes           int64   `json:"minutes"`
	CostCents         int64   `json:"cost_cents"`
}

// usagePageJSON carries the page token beside data, as the audit log does.
type usagePageJSON struct {
	Data      usageJSON `json:"data"`
	PageToken *string   `json:"page_token"`
}

// Usage answers the account's usage in [start, end) with one page of its
// instances (models.UsagePage).
func (h *Handlers) Usage(c *fiber.Ctx) error {
	p, err := h.store.UsagePage(c.UserContext(), Actor(c), models.UsageInput{
		Start: c.Query("start"), End: c.Query("end"), PageToken: c.Query("page_token")})
	if err != nil {
		return err
	}
	stamp := func(t time.Time) string { return t.UTC().Format(time.RFC3339) }
	u := usageJSON{Start: stamp(p.Start), End: stamp(p.End), AsOf: stamp(p.AsOf), TotalCents: p.TotalCents,
		Days: make([]usageDayJSON, len(p.Days)), InstanceTypes: make([]usageTypeJSON, len(p.Types)),
		Instances: make([]usageInstanceJSON, len(p.Instances))}
	for i, d := range p.Days {
		u.Days[i] = usageDayJSON{Date: d.Date.Format(time.DateOnly), CostCents: d.CostCents}
	}
	for i, t := range p.Types {
		u.InstanceTypes[i] = usageTypeJSON(t)
	}
	for i, in := range p.Instances {
		row := usageInstanceJSON{ID: in.InstanceID, Name: in.Name, InstanceTypeName: in.InstanceTypeName,
			RegionName: in.RegionName, PriceCentsPerHour: in.PriceCentsPerHour, LaunchedAt: stamp(in.LaunchedAt),
			Minutes: in.Minutes, CostCents: in.CostCents}
		if in.TerminatedAt != nil {
			s := stamp(*in.TerminatedAt)
			row.TerminatedAt = &s
		}
		u.Instances[i] = row
	}
	body := usagePageJSON{Data: u}
	if p.NextPageToken != "" {
		body.PageToken = &p.NextPageToken
	}
	return c.JSON(body)
}
