package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// TestIssue22Pairs saves the screenshots of docs/screenshots/issue-22:
// six pages (support's queue, the composer, support's account page, the
// webhook page, the audit log, launch) at 1280 and 390 px, what a screen
// shows of each. It runs only when CLOUDPLANE_E2E_PAIRS names a folder;
// the same file, copied into a checkout of the commit before issue 22,
// takes the "before" set (it uses only what the harness had then).
func TestIssue22Pairs(t *testing.T) {
	dir := os.Getenv("CLOUDPLANE_E2E_PAIRS")
	if dir == "" {
		t.Skip("CLOUDPLANE_E2E_PAIRS names no folder for the before/after screenshots")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	s := need(t)
	s.firstOwner(t)
	o := owner{email: fmt.Sprintf("ada-%d@example.com", owners.Add(1)), password: password}
	s.cli(t, "users", "create", "--email", o.email, "--password", o.password)
	key := s.apiKey(t, o)
	var ticket struct{ ID, AccountID string }
	s.api(t, key, http.MethodPost, "/tickets", map[string]any{"subject": "GPU missing after reboot", "type": "incident",
		"severity": "sev_1", "description": "nvidia-smi shows no devices on train-1 since the reboot."}).ok(t, http.StatusOK, &ticket)
	s.api(t, key, http.MethodPost, "/tickets", map[string]string{"subject": "Invoice question", "type": "service_request",
		"description": "Which address is on the invoice?"}).ok(t, http.StatusOK, nil)
	s.api(t, key, http.MethodPost, "/ssh-keys", map[string]any{"name": "laptop"}).ok(t, http.StatusOK, nil)
	s.api(t, key, http.MethodPost, "/filesystems", map[string]any{"name": "datasets", "region": "us-east-1"}).ok(t, http.StatusOK, nil)

	b := s.newTab(t)
	b.signIn(o)
	shoot := func(tb *tab, name, path string) {
		if status := tb.Open(path); status != http.StatusOK {
			t.Errorf("%s answered %d", path, status)
		}
		tb.Settled()
		for _, w := range []struct{ w, h int64 }{{1280, 900}, {390, 844}} {
			tb.Do("set the viewport", chromedp.EmulateViewport(w.w, w.h))
			tb.Settled()
			ctx, cancel := context.WithTimeout(tb.Ctx, stepTimeout)
			png, err := chromedp.Run(ctx, func(ctx context.Context, tg *chromedp.Target) ([]byte, error) {
				res, err := cdp.Call(ctx, tg, page.CaptureScreenshot, page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatPng})
				return res.Data, err
			})
			cancel()
			if err == nil {
				err = os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s-%d.png", name, w.w)), png, 0o644)
			}
			if err != nil {
				t.Errorf("screenshot %s: %v", name, err)
			}
		}
		tb.Do("reset the viewport", chromedp.EmulateViewport(1280, 900))
	}
	b.Open("/webhook")
	b.Fill("main", "^URL$", "https://hooks.example.com/cloudplane")
	b.Press("main", "^Add endpoint$")
	b.WaitText("main", "https://hooks.example.com/cloudplane")
	shoot(b, "webhook", "/webhook")
	shoot(b, "audit-log", "/audit-events")
	shoot(b, "launch", "/instances/launch")

	help := owner{email: fmt.Sprintf("help-%d@example.com", owners.Add(1)), password: password}
	s.cli(t, "users", "create", "--email", help.email, "--password", help.password, "--role", "support")
	sb := s.newTab(t)
	sb.signIn(help)
	shoot(sb, "queue", "/tickets")
	shoot(sb, "composer", "/tickets/"+ticket.ID)
	shoot(sb, "support-account", "/accounts/"+ticket.AccountID)
}
