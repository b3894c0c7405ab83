// Package e2e holds the end-to-end tests: the real cloudplane binary,
// built once and started with `serve` on a fresh SQLite file (a fresh
// PostgreSQL database when CLOUDPLANE_TEST_POSTGRES_URL is set) through
// handlers/testserver, driven by a real headless Chromium through the
// harness in e2e/browser (which e2e/tickets uses too), with the API
// checked over net/http beside it. The package has tests only; this file
// documents it.
//
// Running: `go test ./e2e/ -v` (part of `go test ./...`). The tests skip,
// saying why, when no chromium or google-chrome is on PATH, when
// CLOUDPLANE_E2E=off, or with -short. One browser serves the whole run;
// every test gets its own tab in its own browser context (no shared
// cookies) and, apart from the first-run setup, its own owner and account
// created with `cloudplane users create`, so tests do not see each other's
// resources. Every page a flow visits is saved as a full-page PNG, as
// wide as the viewport (1280 CSS pixels, or 390 where a test narrows it;
// the sideways test saves every page at both), in
// $CLOUDPLANE_E2E_SHOTS or else a new
// $TMPDIR/cloudplane-e2e-shots-*; the server's log is saved there too.
//
// Finding things: flows find controls by their label, buttons and links
// by their accessible name, navigation by the header's nav links, and
// check results through text a person reads (flash, field errors, table
// rows) and through the API. They do not depend on CSS classes or layout.
//
// Each page's flow follows the header's nav link to it; a page missing
// from the nav fails the flow, it is never skipped. The flows expect
// what WEB.md asks of every page:
//
//   - Filesystems (nav "Filesystems"): a form with controls labelled
//     "Name" and "Region" and a submit button whose name says "Create";
//     an invalid name comes back with an error beside the Name field
//     (aria-invalid plus its aria-describedby message, as the shared
//     FieldInput renders); success flashes and lists the name.
//   - Firewall (nav "Firewall"): the global ruleset's rules are edited
//     on the page or behind a link or button whose name or address says
//     "global". Each rule row has controls labelled protocol, port(s),
//     source and description; an "Add rule" button adds a row when no
//     empty row is offered; a save button ("Save"/"Update"). A bad
//     source network comes back with an error in its row.
//   - Instances (nav "Instances"): a launch form (on the page or behind
//     a "Launch" link) with controls labelled instance type, region, SSH
//     key and name; a "Launch" submit button; the list shows the name
//     and status; "Terminate" asks in a confirm dialog first.
//   - Audit log (nav "Audit", "Activity" or "Events"): one page of
//     events in table rows (or list items) and a "Load more" button or
//     link that appends the next page until there is none.
package e2e
