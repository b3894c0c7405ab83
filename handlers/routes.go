package handlers

import (
	"github.com/gofiber/fiber/v2"

	"cloudplane/handlers/api"
	"cloudplane/handlers/observe"
	"cloudplane/handlers/web"
)

// routes is the one route table: every API and page route with its
// middleware.
func routes(app *fiber.App, cfg Config, guard *api.Guard) {
	app.Use(refuseUnparsableTarget)
	app.Use(collapseAPISlashes)
	app.Get("/healthz", health(cfg.Store))
	app.Get("/livez", livez)
	app.Get("/readyz", readyz(cfg.Store, cfg.Dependencies, cfg.Log))
	a := api.New(cfg.Store)
	// Presigned upload URLs, as a storage service would serve them: no API
	// key (the signature is the permission), JSON errors, bodies up to the
	// URL's declared size (uploadLimits). Before the admission gate: an
	// upload waits for a turn among the uploads (MaxUploads), and while
	// its body arrives it must not hold a place other requests wait for.
	uploads := api.NewUploads(cfg.Store, guard, api.UploadConfig{InFlight: cfg.MaxUploads,
		BodyTimeout: max(cfg.ReadTimeout, UploadReadTimeout) + cfg.RequestTimeout, ProgressTimeout: cfg.UploadProgressTimeout})
	app.Put(api.TransferPathPrefix+":id", uploads.Receive)

	gate := newAdmission(inFlight(cfg))
	cfg.Metrics.WatchAdmission(gate.state)
	app.Use(gate.handler)

	// The API's own description needs no key, so it comes before the guard.
	app.Get("/api/v1/openapi.json", api.OpenAPIDocument)
	// A claim outlasts any request, which ends at its timeout.
	idempotency := api.NewIdempotency(cfg.Store, 2*cfg.RequestTimeout, cfg.Log)
	v1 := app.Group("/api/v1", guard.Authenticate, idempotency.Handle)

	v1.Get("/regions", a.Regions)
	v1.Get("/budget", a.Budget)
	v1.Put("/budget", a.SetBudget)
	v1.Get("/audit-events", a.AuditEvents)
	v1.Get("/usage", a.Usage)

	v1.Get("/filesystems", a.Filesystems)
	v1.Get("/file-systems", a.Filesystems) // deprecated spelling, same body
	v1.Post("/filesystems", a.CreateFilesystem)
	v1.Delete("/filesystems/:id", a.DeleteFilesystem)

	v1.Post("/fabric", a.CreateFabricPartition)
	v1.Post("/fabric/:id", a.RenameFabricPartition)
	v1.Delete("/fabric/:id", a.DeleteFabricPartition)

	v1.Get("/firewall-rules", a.InboundFirewallRules)
	v1.Put("/firewall-rules", a.ReplaceInboundFirewallRules)
	v1.Get("/firewall-rulesets", a.FirewallRulesets)
	v1.Post("/firewall-rulesets", a.CreateFirewallRuleset)
	// The fixed global path before :id, which would swallow it.
	v1.Get("/firewall-rulesets/global", a.GlobalFirewallRuleset)
	v1.Patch("/firewall-rulesets/global", a.UpdateGlobalFirewallRuleset)
	v1.Get("/firewall-rulesets/:id", a.FirewallRuleset)
	v1.Patch("/firewall-rulesets/:id", a.UpdateFirewallRuleset)
	v1.Delete("/firewall-rulesets/:id", a.DeleteFirewallRuleset)

	v1.Get("/images", a.Images)
	v1.Get("/instance-types", a.InstanceTypes)
	v1.Get("/instances", a.Instances)
	v1.Get("/instances/:id", a.Instance)
	v1.Post("/instances/:id", a.UpdateInstance)
	v1.Post("/instance-operations/launch", guard.LaunchLimit, a.LaunchInstances)
	v1.Post("/instance-operations/terminate", a.TerminateInstances)
	v1.Post("/instance-operations/restart", a.RestartInstances)

	v1.Get("/ssh-keys", a.SSHKeys)
	v1.Post("/ssh-keys", a.CreateSSHKey)
	v1.Delete("/ssh-keys/:id", a.DeleteSSHKey)

	v1.Get("/tickets", a.Tickets)
	v1.Post("/tickets", a.CreateTicket)
	v1.Get("/tickets/:ticket_id", a.Ticket)
	v1.Patch("/tickets/:ticket_id", a.UpdateTicket)
	v1.Get("/tickets/:ticket_id/attachments", a.TicketAttachments)
	v1.Post("/tickets/:ticket_id/attachments", a.InitiateAttachment)
	v1.Post("/tickets/:ticket_id/attachments/:attachment_id/complete", a.CompleteAttachment)
	v1.Get("/tickets/:ticket_id/attachments/:attachment_id/download", a.AttachmentDownloadURL)
	v1.Delete("/tickets/:ticket_id/attachments/:attachment_id", a.DeleteAttachment)

	if cfg.extraAPIRoutes != nil {
		cfg.extraAPIRoutes(v1)
	}

	// Anything else under /api, in any case, answers the JSON envelope,
	// never HTML.
	app.Use(apiNoRoute)

	// Presigned download URLs: no API key either.
	app.Get(api.TransferPathPrefix+":id", a.DownloadAttachment)

	// The dashboard. Every page and asset gets the security headers; every
	// page knows who is signed in (404s too); every state-changing request
	// needs the CSRF token, and a signed-in user's counts against the
	// account's dashboard write limit.
	w := web.New(web.Config{Store: cfg.Store, Log: cfg.Log, Limits: cfg.SignIn, Metrics: cfg.Metrics,
		MailLinksOnPage: cfg.MailLinksOnPage, RelyingParty: cfg.RelyingParty, SSO: cfg.SSO})
	app.Use(web.SecurityHeaders)
	app.Get("/static/*", web.Static)
	app.Use(misdirectedAPIClient(cfg.Log))
	app.Use(w.LoadSession, web.CSRF, w.LimitWrites)

	// Post/redirect/get: the address of a form that has no page of its own
	// answers GET with the page the form is on, so a reload, or Back then
	// Forward, after a post that showed a refusal meets that page, never a
	// 404. First, before the :id routes that would swallow the fixed paths.
	for _, form := range []string{"/sign-out", "/account/password", "/account/email", "/ssh-keys/generate",
		"/instances/launch/ssh-key",
		"/tickets/:id/comments", "/tickets/:id/status", "/tickets/:id/solve", "/tickets/:id/attachments",
		"/tickets/:id/assignee", "/tickets/:id/notes", "/tickets/:id/reply", "/tickets/:id/reopen",
		"/webhook/:id/enabled", "/webhook/:id/test", "/webhook/:id/headers",
		"/webhook-deliveries/redeliver-failed", "/webhook-deliveries/:id/redeliver",
		"/account/notifications"} {
		app.Get(form, web.FormPage)
	}

	app.Get("/setup/:token", w.SetupForm)
	app.Post("/setup/:token", w.Setup)
	app.Get("/reset-password/:token", w.PasswordResetForm)
	app.Post("/reset-password/:token", w.ResetPassword)
	app.Get("/forgot-password", w.ForgotPasswordForm)
	app.Post("/forgot-password", w.ForgotPassword)
	app.Get("/confirm-email/:token", w.ConfirmEmailForm)
	app.Post("/confirm-email/:token", w.ConfirmEmail)
	app.Get(web.InvitationPrefix+":token", w.Invitation)
	app.Post(web.InvitationPrefix+":token", w.AcceptInvitation)
	app.Get("/cancel-email-change/:token", w.CancelEmailChangeForm)
	app.Post("/cancel-email-change/:token", w.CancelEmailChange)
	app.Get("/sign-in", w.SignInForm)
	app.Get("/sso/:id/start", w.SSOStart)
	app.Get("/sso/:id/callback", w.SSOCallback)
	app.Post("/sign-in", w.SignIn)
	app.Get("/sign-in/second-factor", w.SecondFactorForm)
	app.Post("/sign-in/second-factor", w.SecondFactor)
	app.Get("/sign-in/second-factor/passkey", web.SecondStepPasskeyFormPage)
	app.Get("/sign-in/second-factor/passkey/options", web.SecondStepPasskeyFormPage)
	app.Post("/sign-in/second-factor/passkey/options", w.SecondStepPasskeyOptions)
	app.Post("/sign-in/second-factor/passkey", w.SecondStepPasskey)
	app.Get("/sign-in/enrol", w.EnrolForm)
	app.Post("/sign-in/enrol", w.Enrol)
	app.Get("/sign-in/enrol/passkey", web.EnrolPasskeyFormPage)
	app.Get("/sign-in/enrol/passkey/options", web.EnrolPasskeyFormPage)
	app.Post("/sign-in/enrol/passkey/options", w.EnrolPasskeyOptions)
	app.Post("/sign-in/enrol/passkey", w.EnrolPasskey)
	app.Post("/sign-out", web.RequireUser, w.SignOut)
	// Passkeys: the script fetches options (JSON), then posts the form
	// with the browser's answer; their GETs show the form's page.
	for _, form := range []string{"/sign-in/passkey", "/sign-in/passkey/options", "/account/passkeys",
		"/account/passkeys/options", "/account/passkeys/:id/delete"} {
		app.Get(form, web.PasskeysFormPage)
	}
	app.Post("/sign-in/passkey/options", w.PasskeySignInOptions)
	app.Post("/sign-in/passkey", w.PasskeySignIn)
	// Adding or removing a passkey, a second factor or a single sign-on
	// domain needs a recent authentication (/confirm-identity).
	passkeysAuth, twoFactorAuth := w.RecentAuth("/account#passkeys"), w.RecentAuth("/account#two-factor")
	app.Post("/account/passkeys/options", web.RequireUser, passkeysAuth, w.PasskeyOptions)
	app.Post("/account/passkeys", web.RequireUser, passkeysAuth, w.AddPasskey)
	app.Post("/account/passkeys/:id/delete", web.RequireUser, passkeysAuth, w.DeletePasskey)

	app.Get("/", web.RequireUser, w.Home)
	app.Get("/search", web.RequireUser, w.Search)
	app.Get("/account", web.RequireUser, w.Account)
	app.Post("/account/password", web.RequireUser, w.ChangePassword)
	app.Post("/account/email", web.RequireUser, w.ChangeEmail)
	app.Post("/account/notifications", web.RequireUser, w.SaveNotifications)
	app.Get("/account/sessions/sign-out-others", web.SessionsFormPage)
	app.Post("/account/sessions/sign-out-others", web.RequireUser, w.EndOtherSessions)
	app.Get("/account/sessions/:id/sign-out", web.SessionsFormPage)
	app.Post("/account/sessions/:id/sign-out", web.RequireUser, w.EndSession)
	app.Get("/account/sso/:id/connect", web.RequireUser, w.ConnectSSO)
	app.Get("/account/sso/disconnect", web.SSOConnectionsFormPage)
	app.Post("/account/sso/disconnect", web.RequireUser, w.DisconnectSSO)
	app.Get("/confirm-identity", web.RequireUser, w.ConfirmIdentityForm)
	app.Post("/confirm-identity", web.RequireUser, w.ConfirmIdentity)
	for _, form := range []string{"code", "passkey", "passkey/options"} {
		app.Get("/confirm-identity/"+form, web.ConfirmIdentityFormPage)
	}
	app.Post("/confirm-identity/code", web.RequireUser, w.CodeBudget, w.ConfirmIdentityWithCode)
	app.Post("/confirm-identity/passkey/options", web.RequireUser, w.ConfirmIdentityPasskeyOptions)
	app.Post("/confirm-identity/passkey", web.RequireUser, w.ConfirmIdentityWithPasskey)
	app.Get("/confirm-identity/sso/:id", web.RequireUser, w.ConfirmIdentityWithSSO)
	for _, form := range []string{"start", "confirm", "recovery-codes", "disable", "require"} {
		app.Get("/account/two-factor/"+form, web.TwoFactorFormPage)
	}
	app.Post("/account/two-factor/start", web.RequireUser, twoFactorAuth, w.StartTwoFactor)
	app.Post("/account/two-factor/confirm", web.RequireUser, twoFactorAuth, w.ConfirmTwoFactor)
	app.Post("/account/two-factor/recovery-codes", web.RequireUser, twoFactorAuth, w.RegenerateRecoveryCodes)
	app.Post("/account/two-factor/disable", web.RequireUser, twoFactorAuth, w.DisableTwoFactor)
	app.Post("/account/two-factor/require", web.RequireUser, twoFactorAuth, w.RequireTwoFactor)
	app.Get("/api-keys", web.RequireUser, w.APIKeys)
	app.Post("/api-keys", web.RequireUser, w.CreateAPIKey)
	app.Get("/api-keys/:id/revoke", web.RequireUser, w.ConfirmRevokeAPIKey)
	app.Post("/api-keys/:id/revoke", web.RequireUser, w.RevokeAPIKey)
	app.Post("/account/switch", web.RequireUser, w.SwitchAccount)
	app.Get("/account/switch", web.FormPage)
	app.Get("/members", web.RequireUser, w.Members)
	app.Get("/members/leave", web.RequireUser, w.ConfirmLeaveAccount)
	app.Post("/members/leave", web.RequireUser, w.LeaveAccount)
	app.Get("/members/invitations", web.MembersFormPage)
	app.Post("/members/invitations", web.RequireUser, w.RecentAuth("/members"), w.CreateInvitation)
	app.Get("/members/invitations/:id/resend", web.MembersFormPage)
	app.Post("/members/invitations/:id/resend", web.RequireUser, w.ResendInvitation)
	app.Get("/members/invitations/:id/revoke", web.MembersFormPage)
	app.Post("/members/invitations/:id/revoke", web.RequireUser, w.RevokeInvitation)
	app.Get("/members/sso", web.MembersFormPage)
	app.Post("/members/sso", web.RequireUser, w.RecentAuth("/members"), w.LinkSSODomain)
	app.Get("/members/sso/:domain/unlink", web.MembersFormPage)
	app.Post("/members/sso/:domain/unlink", web.RequireUser, w.RecentAuth("/members"), w.UnlinkSSODomain)
	app.Get("/members/:id/role", web.MembersFormPage)
	app.Post("/members/:id/role", web.RequireUser, w.RecentAuth("/members"), w.SetMemberRole)
	app.Get("/members/:id/remove", web.RequireUser, w.ConfirmRemoveMember)
	app.Post("/members/:id/remove", web.RequireUser, w.RemoveMember)
	app.Get("/members/:id/end-sessions", web.MembersFormPage)
	app.Post("/members/:id/end-sessions", web.RequireUser, w.EndMemberSessions)

	app.Get("/filesystems", web.RequireUser, w.Filesystems)
	app.Post("/filesystems", web.RequireUser, w.CreateFilesystem)
	app.Get("/filesystems/:id/delete", web.RequireUser, w.ConfirmDeleteFilesystem)
	app.Post("/filesystems/:id/delete", web.RequireUser, w.DeleteFilesystem)

	app.Get("/fabric", web.RequireUser, w.FabricPartitions)
	app.Post("/fabric", web.RequireUser, w.CreateFabricPartition)
	app.Get("/fabric/:id/rename", web.RequireUser, w.RenameFabricPartitionForm)
	app.Post("/fabric/:id/rename", web.RequireUser, w.RenameFabricPartition)
	app.Get("/fabric/:id/delete", web.RequireUser, w.ConfirmDeleteFabricPartition)
	app.Post("/fabric/:id/delete", web.RequireUser, w.DeleteFabricPartition)

	app.Get("/firewall", web.RequireUser, w.InboundRules)
	app.Post("/firewall", web.RequireUser, w.SaveInboundRules)
	app.Get("/firewall/global", web.RequireUser, w.GlobalRules)
	app.Post("/firewall/global", web.RequireUser, w.SaveGlobalRules)
	app.Get("/firewall/rulesets", web.RequireUser, w.Rulesets)
	app.Post("/firewall/rulesets", web.RequireUser, w.CreateRuleset)
	// The fixed path before :id, which would swallow it.
	app.Get("/firewall/rulesets/new", web.RequireUser, w.NewRuleset)
	app.Get("/firewall/rulesets/:id", web.RequireUser, w.Ruleset)
	app.Post("/firewall/rulesets/:id", web.RequireUser, w.UpdateRuleset)
	app.Get("/firewall/rulesets/:id/delete", web.RequireUser, w.ConfirmDeleteRuleset)
	app.Post("/firewall/rulesets/:id/delete", web.RequireUser, w.DeleteRuleset)

	app.Get("/instances", web.RequireUser, w.Instances)
	app.Post("/instances", web.RequireUser, w.LaunchInstance)
	app.Get("/instances/launch", web.RequireUser, w.LaunchForm)
	app.Get("/instances/launch/price", web.RequireUser, w.LaunchPrice)
	app.Post("/instances/launch/ssh-key", web.RequireUser, w.LaunchSSHKey)
	app.Get("/instances/:id", web.RequireUser, w.Instance)
	app.Get("/instances/:id/terminate", web.RequireUser, w.ConfirmTerminateInstance)
	app.Post("/instances/:id/terminate", web.RequireUser, w.TerminateInstance)
	app.Get("/instances/:id/restart", web.RequireUser, w.ConfirmRestartInstance)
	app.Post("/instances/:id/restart", web.RequireUser, w.RestartInstance)
	app.Get("/ssh-keys", web.RequireUser, w.SSHKeys)
	app.Post("/ssh-keys", web.RequireUser, w.AddSSHKey)
	app.Post("/ssh-keys/generate", web.RequireUser, w.GenerateSSHKey)
	app.Get("/ssh-keys/:id/delete", web.RequireUser, w.ConfirmDeleteSSHKey)
	app.Post("/ssh-keys/:id/delete", web.RequireUser, w.DeleteSSHKey)
	app.Get("/audit-events", web.RequireUser, w.AuditEvents)
	app.Get("/audit-events/export", web.RequireUser, w.ExportAuditEvents)
	app.Get("/budget", web.RequireUser, w.Budget)
	app.Post("/budget", web.RequireUser, w.SaveBudget)
	app.Get("/usage", web.RequireUser, w.Usage)
	app.Get("/usage/export", web.RequireUser, w.ExportUsage)

	app.Get("/tickets", web.RequireUser, w.Tickets)
	app.Post("/tickets", web.RequireUser, w.CreateTicket)
	// The fixed path before :id, which would swallow it.
	app.Get("/tickets/new", web.RequireUser, w.NewTicket)
	app.Get("/tickets/:id", web.RequireUser, w.Ticket)
	app.Post("/tickets/:id/comments", web.RequireUser, w.CommentOnTicket)
	app.Post("/tickets/:id/status", web.RequireUser, w.MoveTicket)
	app.Get("/tickets/:id/close", web.RequireUser, w.ConfirmCloseTicket)
	app.Post("/tickets/:id/close", web.RequireUser, w.CloseTicket)
	app.Post("/tickets/:id/solve", web.RequireUser, w.SolveTicket)
	app.Post("/tickets/:id/reopen", web.RequireUser, w.ReopenTicket)
	app.Post("/tickets/:id/attachments", web.RequireUser, w.UploadAttachment)
	app.Get("/tickets/:id/attachments/:attachment_id/download", web.RequireUser, w.DownloadAttachment)
	app.Get("/tickets/:id/attachments/:attachment_id/delete", web.RequireUser, w.ConfirmDeleteAttachment)
	app.Post("/tickets/:id/attachments/:attachment_id/delete", web.RequireUser, w.DeleteAttachment)
	// The support desk: assignment, internal notes, accounts.
	app.Post("/tickets/:id/assignee", web.RequireUser, w.AssignTicket)
	app.Post("/tickets/:id/notes", web.RequireUser, w.AddTicketNote)
	app.Post("/tickets/:id/reply", web.RequireUser, w.ReplyToTicket)
	app.Get("/accounts", web.RequireUser, w.Accounts)
	app.Get("/accounts/:id", web.RequireUser, w.AccountForSupport)
	app.Post("/accounts/:id", web.RequireUser, w.RecentAuth(""), w.UpdateAccountForSupport)

	app.Get("/webhook", web.RequireUser, w.Webhooks)
	app.Post("/webhook", web.RequireUser, w.RecentAuth(""), w.CreateWebhook)
	app.Get("/webhook/:id", web.RequireUser, w.Webhook)
	app.Post("/webhook/:id", web.RequireUser, w.RecentAuth(""), w.UpdateWebhook)
	app.Post("/webhook/:id/enabled", web.RequireUser, w.SetWebhookEnabled)
	app.Post("/webhook/:id/test", web.RequireUser, w.SendTestWebhookEvent)
	app.Post("/webhook/:id/headers", web.RequireUser, w.SetWebhookHeaders)
	app.Get("/webhook/:id/rotate-token", web.RequireUser, w.ConfirmRotateWebhookToken)
	app.Post("/webhook/:id/rotate-token", web.RequireUser, w.RecentAuth(""), w.RotateWebhookToken)
	app.Get("/webhook/:id/rotate-secret", web.RequireUser, w.ConfirmRotateWebhookSecret)
	app.Post("/webhook/:id/rotate-secret", web.RequireUser, w.RecentAuth(""), w.RotateWebhookSecret)
	app.Get("/webhook/:id/secret", web.RequireUser, w.WebhookSecret)
	app.Post("/webhook/:id/secret", web.RequireUser, w.RevealWebhookSecret)
	app.Get("/webhook/:id/delete", web.RequireUser, w.ConfirmDeleteWebhook)
	app.Post("/webhook/:id/delete", web.RequireUser, w.DeleteWebhook)
	app.Get("/mail-log", web.RequireUser, w.MailLog)
	app.Get("/webhook-events", web.RequireUser, w.WebhookEvents)
	app.Get("/webhook-deliveries", web.RequireUser, w.Deliveries)
	app.Post("/webhook-deliveries/redeliver-failed", web.RequireUser, w.RedeliverFailedWebhooks)
	app.Get("/webhook-deliveries/:id", web.RequireUser, w.Delivery)
	app.Post("/webhook-deliveries/:id/redeliver", web.RequireUser, w.RedeliverWebhook)

	// Last: whatever gets here matched no route.
	app.Use(observe.Unmatched)
}
