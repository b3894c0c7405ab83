package web

import (
	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
	"cloudplane/views"
)

// searchKinds name each kind of result and the page that shows one.
var searchKinds = []struct {
	kind, title string
	href        func(r models.SearchResult) string
}{
	{models.SearchAccount, "Accounts", func(r models.SearchResult) string { return "/accounts/" + r.ID }},
	{models.SearchInstance, "Instances", func(r models.SearchResult) string { return "/instances/" + r.ID }},
	{models.SearchFilesystem, "Filesystems", func(r models.SearchResult) string { return "/filesystems#filesystem-" + r.ID }},
	{models.SearchSSHKey, "SSH keys", func(r models.SearchResult) string { return "/ssh-keys#ssh-key-" + r.ID }},
	{models.SearchAPIKey, "API keys", func(r models.SearchResult) string { return "/api-keys#key-" + r.ID }},
	{models.SearchTicket, "Tickets", func(r models.SearchResult) string { return "/tickets/" + r.ID }},
	{models.SearchWebhook, "Webhooks", func(r models.SearchResult) string { return "/webhook/" + r.ID }},
}

// Search answers /search?q=: the search page, or for the header's field
// (htmx targeting #search-suggest) the results alone, as suggestions.
func (h *Handlers) Search(c *fiber.Ctx) error {
	a := actor(c)
	v := views.Search{Query: c.Query("q"), Support: a.IsSupport()}
	status := fiber.StatusOK
	found, err := h.store.Search(c.UserContext(), a, v.Query)
	if err != nil {
		form := views.Form{}
		if status, err = formError(err, &form); err != nil {
			return err
		}
		v.Error = form.Error("q")
		if v.Error == "" {
			v.Error = form.Message
		}
	} else {
		v.Query = found.Query
		v.Groups = searchGroups(found.Results, a.IsSupport())
	}
	if c.Get("HX-Request") == "true" && c.Get("HX-Target") == "search-suggest" {
		return renderAlone(c.Status(status), views.SearchResultsList(v))
	}
	return h.page(c, status, "Search", "", views.SearchPage(v))
}

// searchGroups groups results by kind, each linked to its page; staff see
// which account a ticket is of.
func searchGroups(results []models.SearchResult, staff bool) []views.SearchGroup {
	var out []views.SearchGroup
	for _, k := range searchKinds {
		g := views.SearchGroup{Title: k.title}
		for _, r := range results {
			if r.Kind != k.kind {
				continue
			}
			hit := views.SearchHit{Name: r.Name, Href: k.href(r)}
			if staff && r.Kind == models.SearchTicket {
				hit.Note = "account " + r.AccountID
			}
			if r.Kind == models.SearchAccount {
				hit.Note = "account " + r.ID
			}
			g.Results = append(g.Results, hit)
		}
		if len(g.Results) > 0 {
			out = append(out, g)
		}
	}
	return out
}
