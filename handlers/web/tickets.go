package web

import (
	"slices"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
	"cloudplane/views"
)

// Status filters beside the statuses: unresolved stands for every status
// support still works on (the queue's default), resolved for solved and
// closed, any for every status.
const (
	unresolved = "unresolved"
	resolved   = "resolved"
	anyStatus  = "any"
)

// Tickets lists tickets: an owner's own, most recently active first, or
// for support staff the queue of every account's, unresolved ones by
// default in triage order (the most severe, then the longest waiting).
// Filters: status (one status, unresolved, resolved or any), and for
// staff severity and account (an id or an owner's email), with saved
// views and sortable headers as links. A filter the domain refuses is
// shown beside its field (422).
func (h *Handlers) Tickets(c *fiber.Ctx) error {
	a := actor(c)
	q := filterValues(c, "status", "severity", "account", "assignee", "age", "sort")
	v := views.TicketList{Support: a.IsSupport(), Statuses: ticketStatusOptions,
		Status: q["status"], Severity: q["severity"], Account: q["account"]}
	if !v.Support {
		v.Severity, v.Account = "", "" // filters of the queue, not of an owner's list
	}
	if v.Support {
		v.Statuses = queueStatusOptions
	}
	f := models.TicketFilter{OrderBy: "updated_at", PageToken: strings.Clone(c.Query("page_token")),
		Statuses: statusFilter(v.Status, v.Support)}
	if v.Severity != "" {
		f.Severities = []string{v.Severity}
	}
	if v.Support {
		if err := h.queueFilter(c, &v, &f, q); err != nil {
			return err
		}
		queueLinks(&v)
	}
	status, err := h.ticketRows(c, &v, f)
	if err != nil {
		return err
	}
	title := "Support tickets"
	if v.Support {
		title = "Ticket queue"
	}
	return h.page(c, status, title, views.NavTickets, views.TicketsPage(v))
}

// ticketRows fills v with a page of tickets. A refused filter goes back
// on the form, with the status to answer.
func (h *Handlers) ticketRows(c *fiber.Ctx, v *views.TicketList, f models.TicketFilter) (int, error) {
	a := actor(c)
	if v.Account != "" {
		id, err := h.store.AccountID(c.UserContext(), a, v.Account)
		if err != nil {
			return formError(err, &v.Form)
		}
		f.AccountID = id
	}
	if len(v.Form.Errors) > 0 {
		return fiber.StatusUnprocessableEntity, nil
	}
	page, err := h.store.Tickets(c.UserContext(), a, f)
	if err != nil {
		return formError(err, &v.Form)
	}
	now := h.store.Now()
	for _, t := range page.Tickets {
		v.Tickets = append(v.Tickets, ticketRow(t, now))
	}
	v.Paged = f.PageToken != ""
	if page.NextPageToken != nil {
		q := filterQuery(map[string]string{"status": v.Status, "severity": v.Severity, "account": v.Account,
			"assignee": v.Queue.Assignee, "age": v.Queue.Age, "sort": v.Queue.Sort})
		q.Set("page_token", *page.NextPageToken)
		v.NextHref = "/tickets?" + q.Encode()
	}
	return fiber.StatusOK, nil
}

var ticketStatusOptions = func() []views.Option {
	out := []views.Option{{Value: unresolved, Label: "Unresolved"}}
	for _, s := range models.TicketStatuses {
		out = append(out, views.Option{Value: s, Label: views.TicketStatusLabel(s)})
	}
	return out
}()

// queueStatusOptions are the queue's status filter: unresolved is the
// default (the empty choice), any, resolved or one status.
var queueStatusOptions = append([]views.Option{{Value: anyStatus, Label: "Any status"},
	{Value: resolved, Label: "Solved or closed"}}, ticketStatusOptions[1:]...)

// statusFilter is the statuses a status filter stands for; for support
// staff, no filter is unresolved.
func statusFilter(status string, support bool) []string {
	switch status {
	case "":
		if support {
			return models.UnresolvedTicketStatuses()
		}
		return nil
	case anyStatus:
		return nil
	case unresolved:
		return models.UnresolvedTicketStatuses()
	case resolved:
		return []string{models.TicketSolved, models.TicketClosed}
	}
	return []string{status}
}

func ticketRow(t models.TicketSummary, now time.Time) views.TicketRow {
	r := views.TicketRow{ID: t.ID, Subject: t.Subject, Status: t.Status, Type: t.RequestType,
		AccountID: t.AccountID, Created: t.CreatedAt, Updated: t.UpdatedAt,
		Requester: t.Requester, CommentCount: t.CommentCount, AccountEmail: t.AccountEmail, Assignee: t.AssigneeEmail,
		Waiting: waitingFor(t.WaitingSince, t.Status, now)}
	if t.Severity != nil {
		r.Severity = *t.Severity
	}
	return r
}

// supportHome is the home page of support staff: the newest unresolved
// tickets, and what else they can do.
func (h *Handlers) supportHome(c *fiber.Ctx) error {
	a := actor(c)
	const shown = 10
	page, err := h.store.Tickets(c.UserContext(), a, models.TicketFilter{
		Statuses: models.UnresolvedTicketStatuses(), OrderBy: "triage", Direction: "asc", Limit: shown})
	if err != nil {
		return err
	}
	v := views.SupportHome{Email: a.Email, More: page.NextPageToken != nil}
	for _, t := range page.Tickets {
		v.Tickets = append(v.Tickets, ticketRow(t, h.store.Now()))
	}
	return h.page(c, fiber.StatusOK, "Support", views.NavOverview, views.SupportHomePage(v))
}

// NewTicket is the form that opens a ticket. Only owners open tickets.
func (h *Handlers) NewTicket(c *fiber.Ctx) error {
	if err := requireOwner(actor(c)); err != nil {
		return err
	}
	return h.page(c, fiber.StatusOK, "Open a ticket", views.NavTickets, views.NewTicketPage(views.NewTicket{CSRF: csrfToken(c)}))
}

// CreateTicket opens a ticket from the dashboard and shows it. Refused
// input comes back beside its fields.
func (h *Handlers) CreateTicket(c *fiber.Ctx) error {
	form := views.Form{Values: formValues(c, "subject", "type", "severity", "description")}
	severity := form.Value("severity")
	t, err := h.store.CreateTicket(c.UserContext(), actor(c), models.CreateTicketInput{Subject: form.Value("subject"),
		Description: form.Value("description"), Type: form.Value("type"), Severity: &severity})
	if err != nil {
		status, err := formErrorAt(err, &form, map[string]string{"subject": "subject", "type": "type",
			"severity": "severity", "description": "description"})
		if err != nil {
			return err
		}
		showAt(c, "/tickets/new")
		return h.page(c, status, "Open a ticket", views.NavTickets, views.NewTicketPage(views.NewTicket{Form: form, CSRF: csrfToken(c)}))
	}
	file, err := h.attachWritten(c, t.ID)
	if err != nil {
		form, status, err := writtenFileRefused(err, "file", "The ticket was opened.")
		if err != nil {
			return err
		}
		showAt(c, "/tickets/"+t.ID)
		return h.ticketPage(c, status, t.ID, ticketForms{attach: form})
	}
	if file != "" {
		file = " “" + file + "” is attached."
	}
	if err := h.flash(c, "Ticket opened."+file+" Support answers here; add a comment if you have more to tell."); err != nil {
		return err
	}
	return redirect(c, "/tickets/"+t.ID)
}

// Ticket shows a ticket with its conversation: an owner's own, or any to
// support staff. Another account's ticket is not found.
func (h *Handlers) Ticket(c *fiber.Ctx) error {
	return h.ticketPage(c, fiber.StatusOK, strings.Clone(c.Params("id")), ticketForms{})
}

// ticketForms are a ticket page's forms as a refused post leaves them.
type ticketForms struct {
	comment, note, attach, composer views.Form
	moveError                       string
	assignError                     string
}

func (h *Handlers) ticketPage(c *fiber.Ctx, status int, id string, forms ticketForms) error {
	a := actor(c)
	t, err := h.store.Ticket(c.UserContext(), a, id)
	if err != nil {
		return err
	}
	v := views.Ticket{TicketRow: ticketRow(t.Summary(), h.store.Now()), Source: t.Source, Resolved: t.ResolvedAt, Support: a.IsSupport(),
		CommentForm: forms.comment, Composer: forms.composer, MoveError: forms.moveError, CSRF: csrfToken(c)}
	v.AttachForm = forms.attach
	if v.Attachments, err = h.attachments(c, t.ID); err != nil {
		return err
	}
	v.InstanceID, v.InstanceIP = deref(t.InstanceID), deref(t.InstanceIP)
	moves := models.TicketMoves(t.Status)
	if v.Support {
		v.Moves = moves
	} else {
		v.CanSolve = slices.Contains(moves, models.TicketSolved)
		v.CanReopen = t.Status == models.TicketSolved && slices.Contains(moves, models.TicketOpen)
	}
	showAt(c, "/tickets/"+t.ID)
	if err := h.thread(c, &v, t); err != nil {
		return err
	}
	v.Thread = threadWithFiles(v.Thread, v.Attachments)
	if v.Support {
		if err := h.desk(c, &v, t, forms); err != nil {
			return err
		}
	}
	return h.page(c, status, t.Subject, views.NavTickets, views.TicketPage(v))
}

// CommentOnTicket adds a comment and returns to the ticket; an empty or
// refused comment comes back beside the field.
func (h *Handlers) CommentOnTicket(c *fiber.Ctx) error {
	id := strings.Clone(c.Params("id"))
	form := views.Form{Values: formValues(c, "comment")}
	done, file := "Comment added", ""
	var err error
	if onlyFile(c, form.Value("comment")) {
		done = "File attached"
	} else {
		_, err = h.store.UpdateTicket(c.UserContext(), actor(c), id,
			models.UpdateTicketInput{Comment: &models.TicketCommentInput{Body: form.Value("comment")}})
	}
	if err != nil {
		status, err := formErrorAt(err, &form, map[string]string{"comment.body": "comment"})
		if err != nil {
			return err
		}
		return h.ticketPage(c, status, id, ticketForms{comment: form})
	}
	// The file follows the comment, so that it shows after it.
	if file, err = h.attachWritten(c, id); err != nil {
		saved := "Your comment was added."
		if done == "File attached" {
			saved = "Nothing was sent."
		}
		form, status, err := writtenFileRefused(err, "attachment", saved)
		if err != nil {
			return err
		}
		return h.ticketPage(c, status, id, ticketForms{comment: form})
	}
	if done == "File attached" {
		done, file = "File “"+file+"” attached", ""
	}
	if err := h.flash(c, sentWith(done, file)); err != nil {
		return err
	}
	return redirect(c, "/tickets/"+id)
}

// MoveTicket moves a ticket to the posted status. Support staff make any
// move the status machine allows; owners may only solve. A refused move
// changes nothing and is said on the ticket's page (422).
func (h *Handlers) MoveTicket(c *fiber.Ctx) error {
	to := strings.Clone(c.FormValue("status"))
	if to == models.TicketClosed {
		// Closing cannot be undone: it goes through its confirmation.
		return redirect(c, "/tickets/"+strings.Clone(c.Params("id"))+"/close")
	}
	return h.changeStatus(c, to)
}

// ConfirmCloseTicket asks before closing a ticket, which is final.
func (h *Handlers) ConfirmCloseTicket(c *fiber.Ctx) error {
	t, err := h.store.Ticket(c.UserContext(), actor(c), c.Params("id"))
	if err != nil {
		return err
	}
	return h.confirm(c, "Close ticket", views.NavTickets, views.Confirm{
		Title: "Close “" + t.Subject + "”?",
		Text: "A closed ticket cannot change: nobody can comment on it, reopen it or move it again. " +
			"The requester is told it is resolved. To keep the door open, mark it solved instead.",
		Action:     "/tickets/" + t.ID + "/close",
		Submit:     "Close ticket",
		CancelHref: "/tickets/" + t.ID,
	}, false)
}

// CloseTicket closes a ticket once confirmed.
func (h *Handlers) CloseTicket(c *fiber.Ctx) error {
	return h.changeStatus(c, models.TicketClosed)
}

// ReopenTicket is the owner's "Still broken? Reopen" of a solved ticket.
func (h *Handlers) ReopenTicket(c *fiber.Ctx) error {
	return h.changeStatus(c, models.TicketOpen)
}

// SolveTicket is the owner's "mark as solved".
func (h *Handlers) SolveTicket(c *fiber.Ctx) error {
	return h.changeStatus(c, models.TicketSolved)
}

func (h *Handlers) changeStatus(c *fiber.Ctx, to string) error {
	id := strings.Clone(c.Params("id"))
	_, err := h.store.UpdateTicket(c.UserContext(), actor(c), id, models.UpdateTicketInput{Status: &to})
	if err != nil {
		status, msg, err := refused(err)
		if err != nil {
			return err
		}
		return h.ticketPage(c, status, id, ticketForms{moveError: msg})
	}
	msg := "Ticket moved to " + views.TicketStatusLabel(to) + "."
	switch {
	case to == models.TicketSolved && !actor(c).IsSupport():
		msg = "Ticket marked as solved. Thank you; reopen it here if the problem comes back."
	case to == models.TicketOpen && !actor(c).IsSupport():
		msg = "Ticket reopened. Support sees it in their queue again."
	}
	if err := h.flash(c, msg); err != nil {
		return err
	}
	return redirect(c, "/tickets/"+id)
}
