package web

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"maps"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"cloudplane/handlers/respond"
	"cloudplane/models"
	"cloudplane/views"
)

// auditExportTimeout bounds an export's reading and writing. The body is
// written after the handler returns, past the request's own deadline, so
// the export carries one of its own.
const auditExportTimeout = 2 * time.Minute

// auditExportFormat is one way to write an export.
type auditExportFormat struct {
	contentType, file string
	writer            func(w *bufio.Writer, names eventNames) func(*models.AuditEvent) error
}

// auditExportFormats are the export's formats by the format parameter.
var auditExportFormats = map[string]auditExportFormat{
	"csv":   {"text/csv; charset=utf-8", "audit-events.csv", csvWriter},
	"jsonl": {"application/jsonl; charset=utf-8", "audit-events.jsonl", jsonLineWriter},
}

// auditCSVHeader names the CSV export's columns.
var auditCSVHeader = []string{"event_id", "event_time", "resource_type", "action", "summary", "actor", "actor_role",
	"actor_lrn", "request_api_key_lrn", "resource_lrns", "resource_owner_lrn", "additional_details"}

// ExportAuditEvents streams every event the audit log's filters match, in
// the page's order, up to models.AuditExportLimit, as CSV or JSON lines.
// Filters are checked before anything is sent; a failure once the body has
// started ends it with a line that says the export is incomplete.
func (h *Handlers) ExportAuditEvents(c *fiber.Ctx) error {
	format, ok := auditExportFormats[c.Query("format")]
	if !ok {
		return &models.Error{Code: models.CodeInvalidParameters, Message: "Unknown export format.",
			Suggestion: "Export as format=csv or format=jsonl."}
	}
	a := actor(c)
	form := filterValues(c, auditFilters...)
	export, err := h.store.ExportAuditEvents(c.UserContext(), a, auditInput(views.Form{Values: form}))
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(c.UserContext()), auditExportTimeout)
	c.Set(fiber.HeaderContentType, format.contentType)
	c.Set(fiber.HeaderContentDisposition, `attachment; filename="`+format.file+`"`)
	c.Set(fiber.HeaderCacheControl, "no-store")
	c.Context().SetBodyStreamWriter(func(w *bufio.Writer) {
		defer cancel()
		write := format.writer(w, eventNames{actor: h.actorNamer(ctx, a), summary: h.summaryNamer(ctx, a)})
		n := 0
		err := export.Each(ctx, func(ev models.AuditEvent) error {
			if err := write(&ev); err != nil {
				return err
			}
			if n++; n%200 == 0 {
				return w.Flush() // an error here is the client gone
			}
			return nil
		})
		if err != nil {
			h.log.WarnContext(ctx, "audit export stopped early", "error", err, "events", n)
			_, _ = w.WriteString("# export incomplete: stopped after " + strconv.Itoa(n) + " events\n")
		}
		_ = w.Flush()
	})
	return nil
}

// auditExportURL is the export of the view the form shows.
func auditExportURL(values map[string]string, format string) string {
	q := filterQuery(values)
	q.Set("format", format)
	return "/audit-events/export?" + q.Encode()
}

// eventNames say an exported event's summary and actor in words.
type eventNames struct {
	actor, summary func(*models.AuditEvent) string
}

func csvWriter(w *bufio.Writer, names eventNames) func(*models.AuditEvent) error {
	cw := csv.NewWriter(w)
	header := true
	return func(ev *models.AuditEvent) error {
		if header {
			header = false
			if err := cw.Write(auditCSVHeader); err != nil {
				return err
			}
		}
		details, _ := json.Marshal(ev.AdditionalDetails) // compacts the stored object
		row := []string{ev.ID, ev.EventTime.UTC().Format(time.RFC3339Nano), ev.ServiceName + "." + ev.ResourceName,
			ev.Action, names.summary(ev), names.actor(ev), deref(ev.ActorRole), deref(ev.ActorLRN),
			deref(ev.RequestAPIKeyLRN), strings.Join(ev.ResourceLRNs, " "), deref(ev.ResourceOwnerLRN), string(details)}
		for i := range row {
			row[i] = csvSafe(row[i])
		}
		if err := cw.Write(row); err != nil {
			return err
		}
		cw.Flush()
		return cw.Error()
	}
}

// csvSafe keeps a spreadsheet from reading a cell as a formula: one that
// starts with = + - @ (or a tab or carriage return, which some read past)
// gets a leading quote.
func csvSafe(cell string) string {
	if cell != "" && strings.ContainsRune("=+-@\t\r", rune(cell[0])) {
		return "'" + cell
	}
	return cell
}

// auditEventLine is an event as a JSON line: the API's fields, with the
// actor's role and the event in words.
type auditEventLine struct {
	respond.AuditEventJSON
	ActorRole *string `json:"actor_role"`
	Summary   string  `json:"summary"`
	Actor     string  `json:"actor"`
}

func jsonLineWriter(w *bufio.Writer, names eventNames) func(*models.AuditEvent) error {
	enc := json.NewEncoder(w)
	return func(ev *models.AuditEvent) error {
		return enc.Encode(auditEventLine{AuditEventJSON: respond.AuditEvent(*ev), ActorRole: ev.ActorRole,
			Summary: names.summary(ev), Actor: names.actor(ev)})
	}
}

// actorNamer names each event's actor as the log page does, but by email
// where the page says "You": an export is read by others. It looks each
// user up once (the export is streamed, so not all at once). A lookup
// that fails leaves the generic name.
func (h *Handlers) actorNamer(ctx context.Context, viewer models.Actor) func(*models.AuditEvent) string {
	emails, looked := map[string]string{}, map[string]bool{}
	reader := viewer
	reader.UserID = "" // no event is "yours" in a file others read
	return func(ev *models.AuditEvent) string {
		if id := ev.ActorUserID(); id != "" && !looked[id] {
			looked[id] = true
			if found, err := h.store.MemberActorEmails(ctx, viewer, []models.AuditEvent{*ev}); err == nil {
				maps.Copy(emails, found)
			}
		}
		return eventActor(*ev, reader, emails)
	}
}

// summaryNamer says each event as the log page does, its objects named as
// they are called now, looking each object up once. A lookup that fails
// leaves the names the event holds.
func (h *Handlers) summaryNamer(ctx context.Context, viewer models.Actor) func(*models.AuditEvent) string {
	objects, looked := map[string]models.AuditObject{}, map[string]bool{}
	return func(ev *models.AuditEvent) string {
		fresh := false
		for _, l := range ev.ResourceLRNs {
			fresh = fresh || !looked[l]
			looked[l] = true
		}
		if fresh {
			if found, err := h.store.AuditObjects(ctx, viewer, []models.AuditEvent{*ev}); err == nil {
				maps.Copy(objects, found)
			}
		}
		return partsText(describeEvent(*ev, objects))
	}
}
