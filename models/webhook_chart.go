package models

import (
	"context"
	"strings"
	"time"
)

// WebhookChartHour is how the attempts to an endpoint that started in one
// hour fared.
type WebhookChartHour struct {
	Start     time.Time // the hour's start, UTC
	Succeeded int64
	Failed    int64
}

// WebhookChart is an endpoint's attempts over the last HealthWindow, hour
// by hour, oldest first, the current (partial) hour last: the owner's own
// endpoint, any for staff (else CodeNotFound). One aggregate over the
// (endpoint_id, started_at) index's range, whichever the database.
func (s *Store) WebhookChart(ctx context.Context, actor Actor, endpointID string) ([]WebhookChartHour, error) {
	e, err := s.WebhookEndpoint(ctx, actor, endpointID)
	if err != nil {
		return nil, err
	}
	hours := int(HealthWindow / time.Hour)
	first := s.Now().UTC().Truncate(time.Hour).Add(-time.Duration(hours-1) * time.Hour)
	out := make([]WebhookChartHour, hours)
	cols := make([]string, 0, 2*hours)
	args := make([]any, 0, 4*hours)
	for i := range out {
		out[i].Start = first.Add(time.Duration(i) * time.Hour)
		end := out[i].Start.Add(time.Hour)
		for _, ok := range []bool{true, false} {
			cols = append(cols, "COALESCE(SUM(CASE WHEN started_at >= ? AND started_at < ? AND succeeded = ? THEN 1 ELSE 0 END), 0)")
			args = append(args, out[i].Start, end, ok)
		}
	}
	row := s.read(ctx).Model(&WebhookAttempt{}).Select(strings.Join(cols, ", "), args...).
		Where("endpoint_id = ? AND started_at >= ?", e.ID, first).Row()
	dest := make([]any, 0, 2*hours)
	for i := range out {
		dest = append(dest, &out[i].Succeeded, &out[i].Failed)
	}
	if err := row.Scan(dest...); err != nil {
		return nil, err
	}
	return out, nil
}
