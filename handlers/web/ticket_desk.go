package web

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
	"cloudplane/views"
)

// queueAges are the age filter's values.
var queueAges = map[string]time.Duration{"1d": 24 * time.Hour, "3d": 72 * time.Hour,
	"7d": 7 * 24 * time.Hour, "30d": 30 * 24 * time.Hour}

// queueSorts are the sort filter's values as the domain's order and
// direction; "" is triage: the most severe, then the longest waiting.
var queueSorts = map[string][2]string{"": {"triage", "asc"}, "waiting": {"waiting", "asc"},
	"updated": {"updated_at", "desc"}, "oldest": {"created_at", "asc"},
	"newest": {"created_at", "desc"}, "severity": {"severity", "asc"}, "status": {"status", "asc"},
	"assignee": {"assignee", "asc"}}

// queueHeaders are the queue table's columns and the sort each one's
// link sets ("-" for a column that does not sort).
var queueHeaders = []struct{ label, sort string }{{"Subject", "-"}, {"Status", "status"}, {"Severity", ""},
	{"Waiting", "waiting"}, {"Assignee", "assignee"}, {"Account", "-"}, {"Last activity", "updated"}}

// savedViews are the queue's saved views: a label and its filters.
var savedViews = []struct {
	label  string
	filter map[string]string
}{
	{"All unresolved", map[string]string{}},
	{"Mine", map[string]string{"assignee": models.TicketMine}},
	{"Unassigned sev 1", map[string]string{"assignee": models.TicketUnassigned, "severity": "sev_1"}},
	{"Solved/closed", map[string]string{"status": resolved, "sort": "updated"}},
}

// queueLinks fills the queue's saved views and sortable headers, each a
// link that keeps the other filters.
func queueLinks(v *views.TicketList) {
	current := map[string]string{"status": v.Status, "severity": v.Severity, "account": v.Account,
		"assignee": v.Queue.Assignee, "age": v.Queue.Age, "sort": v.Queue.Sort}
	for _, sv := range savedViews {
		same := true
		for k, val := range current {
			if k != "sort" && sv.filter[k] != val {
				same = false
			}
		}
		v.Queue.Views = append(v.Queue.Views, views.SavedView{Label: sv.label, Href: queueHref(sv.filter), Current: same})
	}
	for _, h := range queueHeaders {
		sh := views.SortHeader{Label: h.label}
		if h.sort != "-" {
			q := maps.Clone(current)
			q["sort"] = h.sort
			sh.Href = queueHref(q)
			if h.sort == v.Queue.Sort {
				sh.AriaSort = "ascending"
				if queueSorts[h.sort][1] == "desc" {
					sh.AriaSort = "descending"
				}
			}
		}
		v.Queue.Headers = append(v.Queue.Headers, sh)
	}
}

func queueHref(filter map[string]string) string {
	if q := filterQuery(filter).Encode(); q != "" {
		return "/tickets?" + q
	}
	return "/tickets"
}

// waitingFor is how long a customer has waited, as the queue shows it:
// "5 min", "2 h", "3 d"; "" when support spoke last or the ticket is
// resolved.
func waitingFor(since *time.Time, status string, now time.Time) string {
	if since == nil || status == models.TicketSolved || status == models.TicketClosed {
		return ""
	}
	d := max(now.Sub(*since), 0)
	switch {
	case d < time.Minute:
		return "<1 min"
	case d < time.Hour:
		return strconv.Itoa(int(d/time.Minute)) + " min"
	case d < 48*time.Hour:
		return strconv.Itoa(int(d/time.Hour)) + " h"
	}
	return strconv.Itoa(int(d/(24*time.Hour))) + " d"
}

// queueFilter reads the support queue's assignee, age and sort into f. A
// value no choice has goes back beside its field.
func (h *Handlers) queueFilter(c *fiber.Ctx, v *views.TicketList, f *models.TicketFilter, q map[string]string) error {
	v.Queue = views.Queue{Assignee: q["assignee"], Age: q["age"], Sort: q["sort"]}
	users, err := h.store.SupportUsers(c.UserContext(), actor(c))
	if err != nil {
		return err
	}
	v.Queue.Assignees = append([]views.Option{{Value: models.TicketUnassigned, Label: "Unassigned"},
		{Value: models.TicketMine, Label: "Assigned to me"}}, assigneeOptions(users)...)
	f.Assignee = v.Queue.Assignee
	v.Form.Errors = map[string]string{}
	if d, ok := queueAges[v.Queue.Age]; ok {
		f.MinAge = d
	} else if v.Queue.Age != "" {
		v.Form.Errors["age"] = "choose one of the ages offered"
	}
	if s, ok := queueSorts[v.Queue.Sort]; ok {
		f.OrderBy, f.Direction = s[0], s[1]
	} else {
		v.Form.Errors["sort"] = "choose one of the orders offered"
	}
	return nil
}

func assigneeOptions(users []models.User) []views.Option {
	out := make([]views.Option, len(users))
	for i, u := range users {
		out[i] = views.Option{Value: u.ID, Label: u.Email}
	}
	return out
}

// thread fills v.Thread with the ticket's comments and activities in the
// order they happened, each author named from the viewer's side: support
// staff read agents' emails, owners read "Support agent".
func (h *Handlers) thread(c *fiber.Ctx, v *views.Ticket, t *models.TicketDetail) error {
	a := actor(c)
	acts, err := h.store.TicketActivities(c.UserContext(), a, t.ID)
	if err != nil {
		return err
	}
	agents := map[string]string{}
	if v.Support {
		var ids []string
		for _, cm := range t.Comments {
			if cm.Author == "support" && cm.AuthorUserID != nil {
				ids = append(ids, *cm.AuthorUserID)
			}
		}
		if agents, err = h.store.StaffEmails(c.UserContext(), a, ids); err != nil {
			return err
		}
	}
	comments, i := t.Comments, 0
	for _, act := range acts {
		for ; i < len(comments) && !comments[i].CreatedAt.After(act.CreatedAt); i++ {
			v.Thread = append(v.Thread, commentItem(comments[i], a, agents))
		}
		v.Thread = append(v.Thread, activityItem(act, a))
	}
	for ; i < len(comments); i++ {
		v.Thread = append(v.Thread, commentItem(comments[i], a, agents))
	}
	return nil
}

// commentItem names a comment's author from the viewer's side. The domain
// stores staff as "support"; staff viewers read the agent's email.
func commentItem(cm models.TicketComment, viewer models.Actor, agents map[string]string) views.ThreadItem {
	author := cm.Author
	switch {
	case cm.AuthorUserID != nil && *cm.AuthorUserID == viewer.UserID:
		author = "You"
	case cm.Author == "support" && cm.AuthorUserID != nil && agents[*cm.AuthorUserID] != "":
		author = agents[*cm.AuthorUserID]
	case cm.Author == "support":
		author = "Support agent" // owners never learn which agent; the badge says Support
	}
	return views.ThreadItem{Comment: &views.Comment{Seq: cm.Seq, Author: author, Staff: cm.Author == "support",
		Body: cm.Body, Time: cm.CreatedAt}}
}

// activityItem names an activity from the viewer's side; owners never
// read an agent's email, in the actor or in an assignment.
func activityItem(act models.TicketActivity, viewer models.Actor) views.ThreadItem {
	item := views.Activity{Seq: act.Seq, Kind: act.Kind, Actor: act.Actor, Staff: act.ByStaff,
		From: deref(act.FromValue), To: deref(act.ToValue), Body: deref(act.Body), Time: act.CreatedAt,
		Viewer: viewer.IsSupport()}
	switch {
	case act.ActorUserID != nil && *act.ActorUserID == viewer.UserID:
		item.Actor = "You"
	case act.ByStaff && !viewer.IsSupport():
		item.Actor = "Support agent"
	}
	if act.Kind == models.ActivityAssignment && !viewer.IsSupport() {
		item.From, item.To = "", ""
		if act.ToValue != nil {
			item.To = "Support"
		}
	}
	return views.ThreadItem{Activity: &item}
}

// desk fills what support staff see beside the thread: the assignee and
// whom the ticket can be given to, and the internal note form.
func (h *Handlers) desk(c *fiber.Ctx, v *views.Ticket, t *models.TicketDetail, forms ticketForms) error {
	a := actor(c)
	users, err := h.store.SupportUsers(c.UserContext(), a)
	if err != nil {
		return err
	}
	d := &views.Desk{Assignee: deref(t.AssigneeUserID), Me: a.UserID, Assignees: assigneeOptions(users),
		AssignError: forms.assignError}
	if forms.note.Values != nil { // a refused note of the old form goes back in the composer
		v.Composer = views.Form{Values: map[string]string{"kind": models.ReplyNote, "body": forms.note.Value("note")},
			Errors: map[string]string{"body": forms.note.Error("note")}, Message: forms.note.Message}
	}
	for _, to := range []string{models.TicketPending, models.TicketSolved} {
		if slices.Contains(models.TicketMoves(t.Status), to) {
			v.ComposeTo = append(v.ComposeTo, to)
		}
	}
	if d.Assignee != "" {
		emails, err := h.store.StaffEmails(c.UserContext(), a, []string{d.Assignee})
		if err != nil {
			return err
		}
		d.AssigneeEmail = emails[d.Assignee]
	}
	owners, err := h.store.AccountOwnerEmails(c.UserContext(), a, []string{t.AccountID})
	if err != nil {
		return err
	}
	v.AccountEmail, v.Desk = owners[t.AccountID], d
	return nil
}

// AssignTicket gives the ticket to the posted support user, or to nobody.
// The form carries the assignee the agent saw: if another agent changed it
// meanwhile nothing changes, and the page says who has it now (409).
func (h *Handlers) AssignTicket(c *fiber.Ctx) error {
	id := strings.Clone(c.Params("id"))
	form := formValues(c, "assignee", "from")
	from := form["from"]
	t, err := h.store.AssignTicket(c.UserContext(), actor(c), id, models.AssignTicketInput{Assignee: form["assignee"], From: &from})
	if err != nil {
		e, ok := models.AsError(err)
		if ok && e.Code == models.CodeConflict {
			return h.ticketPage(c, fiber.StatusConflict, id, ticketForms{assignError: views.Sentence("", e.Message) + " " + views.Sentence("", e.Suggestion)})
		}
		status, msg, err := refused(err)
		if err != nil {
			return err
		}
		return h.ticketPage(c, status, id, ticketForms{assignError: msg})
	}
	msg := "Ticket unassigned."
	if t.AssigneeUserID != nil {
		msg = "Ticket assigned."
		if *t.AssigneeUserID == actor(c).UserID {
			msg = "Ticket assigned to you."
		}
	}
	if err := h.flash(c, msg); err != nil {
		return err
	}
	return redirect(c, "/tickets/"+id)
}

// AddTicketNote adds an internal note; an empty or refused note comes
// back beside its field.
func (h *Handlers) AddTicketNote(c *fiber.Ctx) error {
	id := strings.Clone(c.Params("id"))
	form := views.Form{Values: formValues(c, "note")}
	if _, err := h.store.AddTicketNote(c.UserContext(), actor(c), id, form.Value("note")); err != nil {
		status, err := formErrorAt(err, &form, map[string]string{"note": "note"})
		if err != nil {
			return err
		}
		return h.ticketPage(c, status, id, ticketForms{note: form})
	}
	if err := h.flash(c, "Internal note added. Only support staff see it."); err != nil {
		return err
	}
	return redirect(c, "/tickets/"+id)
}

// nameAccounts gives support staff each delivery's account by its owner's
// email; owners see only their own, unnamed.
func (h *Handlers) nameAccounts(c *fiber.Ctx, rows []views.Delivery) error {
	a := actor(c)
	if !a.IsSupport() || len(rows) == 0 {
		return nil
	}
	ids := make([]string, len(rows))
	for i, d := range rows {
		ids[i] = d.AccountID
	}
	emails, err := h.store.AccountOwnerEmails(c.UserContext(), a, ids)
	if err != nil {
		return err
	}
	for i := range rows {
		rows[i].AccountEmail = emails[rows[i].AccountID]
	}
	return nil
}

// ReplyToTicket sends the composer: a reply or an internal note, and the
// move of the button pressed, in one operation. A refused send changes
// nothing and comes back in the composer with what was typed.
func (h *Handlers) ReplyToTicket(c *fiber.Ctx) error {
	id := strings.Clone(c.Params("id"))
	form := views.Form{Values: formValues(c, "kind", "body", "status")}
	in := models.TicketReplyInput{Kind: form.Value("kind"), Body: form.Value("body"), Status: form.Value("status")}
	if _, err := h.store.ReplyToTicket(c.UserContext(), actor(c), id, in); err != nil {
		status, err := formErrorAt(err, &form, map[string]string{"body": "body", "kind": "kind"})
		if err != nil {
			return err
		}
		return h.ticketPage(c, status, id, ticketForms{composer: form})
	}
	msg := "Reply sent"
	if in.Kind == models.ReplyNote {
		msg = "Internal note added"
	}
	// The file follows the message, so that it shows after it; with a
	// note it is internal, as the note is.
	file, err := h.attachReplyFile(c, id, in.Kind)
	if err != nil {
		form, status, err := writtenFileRefused(err, "attachment", msg+".")
		if err != nil {
			return err
		}
		form.Values = map[string]string{"kind": in.Kind}
		return h.ticketPage(c, status, id, ticketForms{composer: form})
	}
	msg = sentWith(msg, file)
	if in.Kind == models.ReplyNote {
		msg += " Only support staff see it."
	}
	if in.Status != "" {
		msg += " Ticket moved to " + views.TicketStatusLabel(in.Status) + "."
	}
	if err := h.flash(c, msg); err != nil {
		return err
	}
	return redirect(c, "/tickets/"+id)
}
