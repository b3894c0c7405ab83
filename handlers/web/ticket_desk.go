package web

import (
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
// direction; "" is last activity first.
var queueSorts = map[string][2]string{"": {"updated_at", "desc"}, "oldest": {"created_at", "asc"},
	"newest": {"created_at", "desc"}, "severity": {"severity", "asc"}, "status": {"status", "asc"},
	"assignee": {"assignee", "asc"}}

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
// staff read agents' emails, owners read "Support".
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
		author = "Support"
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
		item.Actor = "Support"
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
		AssignError: forms.assignError, NoteForm: forms.note}
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
