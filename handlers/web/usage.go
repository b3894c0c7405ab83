package web

import (
	"bytes"
	"encoding/csv"
	"net/url"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
	"cloudplane/views"
)

// Usage shows what the account spent in one calendar month (UTC), the
// current one unless ?month=YYYY-MM names another: figures, days, types,
// and a page of instances (?page_token=). Owners, members and viewers.
func (h *Handlers) Usage(c *fiber.Ctx) error {
	ctx, a := c.UserContext(), actor(c)
	months, err := h.store.UsageMonths(ctx, a, "")
	if err != nil {
		return err
	}
	month, err := usageMonth(c.Query("month"), months[0].Month)
	if err != nil {
		return err
	}
	p, err := h.store.UsagePage(ctx, a, monthInput(month, c.Query("page_token")))
	if err != nil {
		return err
	}
	u := views.Usage{Month: month, AsOf: p.AsOf, Actual: p.TotalCents, Paged: c.Query("page_token") != "",
		Current: month.Equal(months[0].Month)}
	if u.Current {
		u.Forecast = p.ForecastCents
	}
	for _, m := range months {
		u.Months = append(u.Months, views.UsageMonth{Value: views.MonthValue(m.Month), Label: m.Month.Format("January 2006"),
			Total: m.TotalCents, Selected: m.Month.Equal(month)})
	}
	for _, d := range p.Days {
		u.Days = append(u.Days, views.UsageDay{Date: d.Date, Cents: d.CostCents})
	}
	for _, t := range p.Types {
		u.Types = append(u.Types, views.UsageType{Name: t.InstanceTypeName, Instances: t.Instances, Minutes: t.Minutes, Cents: t.CostCents})
	}
	for _, i := range p.Instances {
		u.Instances = append(u.Instances, views.UsageInstance{ID: i.InstanceID, Name: i.Name, Type: i.InstanceTypeName,
			Region: i.RegionName, Launched: i.LaunchedAt, Terminated: i.TerminatedAt, Minutes: i.Minutes,
			PricePerHour: i.PriceCentsPerHour, Cents: i.CostCents})
	}
	if p.NextPageToken != "" {
		u.NextPage = "/usage?" + url.Values{"month": {views.MonthValue(month)}, "page_token": {p.NextPageToken}}.Encode()
	}
	return h.page(c, fiber.StatusOK, "Usage", views.NavUsage, views.UsagePage(u))
}

// usageMonth reads ?month=YYYY-MM; empty is the current month.
func usageMonth(v string, current time.Time) (time.Time, error) {
	if v == "" {
		return current, nil
	}
	m, err := time.Parse("2006-01", v)
	if err != nil {
		return time.Time{}, models.InvalidField("month", "must be a month written YYYY-MM, e.g. 2026-11")
	}
	return m, nil
}

// monthInput asks for the whole month from its first instant to the next
// month's.
func monthInput(month time.Time, token string) models.UsageInput {
	return models.UsageInput{Start: month.Format(time.RFC3339), End: month.AddDate(0, 1, 0).Format(time.RFC3339),
		PageToken: token}
}

// usageCSVHeaders name the export's columns by its rows parameter.
var usageCSVHeaders = map[string][]string{
	"days": {"date_utc", "cost_cents", "cost_usd"},
	"instances": {"instance_id", "instance_name", "instance_type", "region", "price_cents_per_hour",
		"launched_at_utc", "terminated_at_utc", "minutes_in_month", "cost_cents", "cost_usd"},
}

// ExportUsage answers a month's days or instances (?rows=days|instances)
// as CSV, amounts in integer cents and in dollars.
func (h *Handlers) ExportUsage(c *fiber.Ctx) error {
	ctx, a := c.UserContext(), actor(c)
	rows := c.Query("rows")
	header, ok := usageCSVHeaders[rows]
	if !ok {
		return models.InvalidField("rows", "must be days or instances")
	}
	month, err := usageMonth(c.Query("month"), models.MonthStart(h.store.Now()))
	if err != nil {
		return err
	}
	r, err := h.store.Usage(ctx, a, models.UsageQuery{Start: month, End: month.AddDate(0, 1, 0)})
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	_ = w.Write(header)
	cents := func(c int64) string { return strconv.FormatInt(c, 10) }
	dollars := func(c int64) string {
		return strconv.FormatInt(c/100, 10) + "." + strconv.FormatInt(c%100/10, 10) + strconv.FormatInt(c%10, 10)
	}
	if rows == "days" {
		for _, d := range r.Days {
			_ = w.Write([]string{d.Date.Format(time.DateOnly), cents(d.CostCents), dollars(d.CostCents)})
		}
	} else {
		for _, i := range r.Instances {
			end := ""
			if i.TerminatedAt != nil {
				end = i.TerminatedAt.Format(time.RFC3339)
			}
			_ = w.Write([]string{i.InstanceID, csvSafe(i.Name), i.InstanceTypeName, i.RegionName, cents(i.PriceCentsPerHour),
				i.LaunchedAt.Format(time.RFC3339), end, cents(i.Minutes), cents(i.CostCents), dollars(i.CostCents)})
		}
	}
	w.Flush()
	c.Set(fiber.HeaderContentType, "text/csv; charset=utf-8")
	c.Set(fiber.HeaderContentDisposition, `attachment; filename="cloudplane-usage-`+views.MonthValue(month)+"-"+rows+`.csv"`)
	c.Set(fiber.HeaderCacheControl, "no-store")
	return c.Send(buf.Bytes())
}
