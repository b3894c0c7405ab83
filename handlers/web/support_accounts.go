package web

import (
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
	"cloudplane/views"
)

// Accounts is support staff's list of accounts by owner email, searchable
// and paged. Owners get the domain's 403.
func (h *Handlers) Accounts(c *fiber.Ctx) error {
	v := views.AccountList{Email: filterValues(c, "email")["email"]}
	token := strings.Clone(c.Query("page_token"))
	page, err := h.store.Accounts(c.UserContext(), actor(c), models.AccountFilter{Email: v.Email, PageToken: token})
	status := fiber.StatusOK
	if err != nil {
		if status, err = formError(err, &v.Form); err != nil {
			return err
		}
		page = &models.AccountPage{}
	}
	ids := make([]string, len(page.Accounts))
	for i, a := range page.Accounts {
		ids[i] = a.ID
	}
	spends, err := h.store.MonthSpends(c.UserContext(), actor(c), ids) // one query for the page
	if err != nil {
		return err
	}
	for _, a := range page.Accounts {
		row := accountRow(a)
		row.SpendCents, row.ForecastCents = spends[a.ID].ActualCents, spends[a.ID].ForecastCents
		v.Accounts = append(v.Accounts, row)
	}
	v.Paged = token != ""
	if page.NextPageToken != nil {
		q := filterQuery(map[string]string{"email": v.Email})
		q.Set("page_token", *page.NextPageToken)
		v.NextHref = "/accounts?" + q.Encode()
	}
	return h.page(c, status, "Accounts", views.NavAccounts, views.AccountsPage(v))
}

func accountRow(a models.AccountListing) views.AccountRow {
	return views.AccountRow{ID: a.ID, OwnerEmail: a.OwnerEmail, Status: a.Status, BillingValid: a.BillingAddressValid,
		FilesystemQuota: a.FilesystemQuota, RulesetQuota: a.RulesetQuota, FabricPartitionQuota: a.FabricPartitionQuota,
		Created: a.CreatedAt}
}

// quotaUsages are every quota the operator's CLI sets, beside what the
// account uses of each.
func quotaUsages(o *models.AccountOverview) []views.QuotaUsage {
	return []views.QuotaUsage{
		{Name: "filesystem_quota", Label: "Filesystem quota", Noun: "filesystems", Used: o.Filesystems, Quota: o.Account.FilesystemQuota},
		{Name: "ruleset_quota", Label: "Firewall ruleset quota", Noun: "rulesets", Used: o.Rulesets, Quota: o.Account.RulesetQuota},
		{Name: "fabric_partition_quota", Label: "Fabric partition quota", Noun: "fabric partitions", Used: o.FabricPartitions,
			Quota: o.Account.FabricPartitionQuota},
	}
}

// accountFormFields are the fields of support's account form.
var accountFormFields = []string{"status", "billing", "filesystem_quota", "ruleset_quota", "fabric_partition_quota", "reason"}

// AccountForSupport shows one account with the form that changes it.
func (h *Handlers) AccountForSupport(c *fiber.Ctx) error {
	return h.supportAccountPage(c, fiber.StatusOK, strings.Clone(c.Params("id")), nil)
}

func (h *Handlers) supportAccountPage(c *fiber.Ctx, status int, id string, form *views.Form) error {
	a, err := h.store.AccountForSupport(c.UserContext(), actor(c), id)
	if err != nil {
		return err
	}
	usage, err := h.store.AccountOverviewForSupport(c.UserContext(), actor(c), id)
	if err != nil {
		return err
	}
	spend, err := h.store.MonthSpend(c.UserContext(), actor(c), id)
	if err != nil {
		return err
	}
	v := views.AccountDetail{AccountRow: accountRow(*a), CSRF: csrfToken(c), Quotas: quotaUsages(usage)}
	v.SpendCents, v.ForecastCents = spend.ActualCents, spend.ForecastCents
	if form != nil {
		v.Form = *form
	} else {
		billing := "valid"
		if !a.BillingAddressValid {
			billing = "invalid"
		}
		v.Form.Values = map[string]string{"status": a.Status, "billing": billing,
			"filesystem_quota": strconv.Itoa(a.FilesystemQuota), "ruleset_quota": strconv.Itoa(a.RulesetQuota),
			"fabric_partition_quota": strconv.Itoa(a.FabricPartitionQuota)}
	}
	showAt(c, "/accounts/"+a.ID)
	return h.page(c, status, a.OwnerEmail, views.NavAccounts, views.AccountSupportPage(v))
}

// UpdateAccountForSupport changes an account's status, billing address and
// quotas through the operator CLI's domain operation, audited with the
// support user as actor and the reason they give, which the domain
// requires of them. Refused values come back beside their fields.
func (h *Handlers) UpdateAccountForSupport(c *fiber.Ctx) error {
	id := strings.Clone(c.Params("id"))
	form := views.Form{Values: formValues(c, accountFormFields...), Errors: map[string]string{}}
	in := models.UpdateAccountInput{Status: optionalValue(form.Value("status")), Reason: form.Value("reason")}
	switch form.Value("billing") {
	case "":
	case "valid", "invalid":
		valid := form.Value("billing") == "valid"
		in.BillingAddressValid = &valid
	default:
		form.Errors["billing"] = "must be valid or invalid"
	}
	in.FilesystemQuota = wholeNumber(&form, "filesystem_quota")
	in.RulesetQuota = wholeNumber(&form, "ruleset_quota")
	in.FabricPartitionQuota = wholeNumber(&form, "fabric_partition_quota")
	if len(form.Errors) > 0 {
		return h.supportAccountPage(c, fiber.StatusUnprocessableEntity, id, &form)
	}
	if _, err := h.store.UpdateAccountByID(c.UserContext(), actor(c), id, in); err != nil {
		status, err := formErrorAt(err, &form, map[string]string{"status": "status",
			"filesystem_quota": "filesystem_quota", "ruleset_quota": "ruleset_quota",
			"fabric_partition_quota": "fabric_partition_quota", "reason": "reason"})
		if err != nil {
			return err
		}
		return h.supportAccountPage(c, status, id, &form)
	}
	if err := h.flash(c, "Account saved."); err != nil {
		return err
	}
	return redirect(c, "/accounts/"+id)
}

func optionalValue(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// wholeNumber reads an optional whole-number field, or says beside it why
// it is not one.
func wholeNumber(form *views.Form, name string) *int {
	v := strings.TrimSpace(form.Value(name))
	if v == "" {
		return nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		form.Errors[name] = "must be a whole number"
		return nil
	}
	return &n
}
