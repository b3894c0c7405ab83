package models

import "context"

// WebhookGuard judges a webhook's destination when its URL is saved, so
// that no endpoint is made to point at an internal address. The models
// package knows no network registry: cloudplane gives the store
// webhooks/netguard's Guard, which shares its registries with the
// dispatcher's dialer.
type WebhookGuard interface {
	// CheckURL returns the URL to store (normalised: what will be
	// dialled) or why it is refused, as the url field's message. It
	// refuses internal addresses in any spelling unless allowPrivate.
	CheckURL(raw string, allowPrivate bool) (normalized, problem string)
	// CheckHost returns why the URL's host name, resolved now, is
	// refused, or "". It is asked only when private destinations are
	// not allowed.
	CheckHost(ctx context.Context, url string) (problem string)
}

// noWebhookGuard is a store's guard until WithWebhookGuard gives it one:
// with no way to judge a destination, it accepts none.
type noWebhookGuard struct{}

const noGuardProblem = "cannot be accepted: this server has no check of webhook destinations configured"

func (noWebhookGuard) CheckURL(raw string, _ bool) (string, string) { return raw, noGuardProblem }

func (noWebhookGuard) CheckHost(context.Context, string) string { return noGuardProblem }
