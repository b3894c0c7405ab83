package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"cloudplane/handlers/respond"
	"cloudplane/models"
)

// auditPageJSON is the page as the handler built it before appendAuditPage,
// for c.JSON (encoding/json, HTML-escaping) to marshal: the reference.
type auditPageJSON struct {
	Data      []respond.AuditEventJSON `json:"data"`
	PageToken *string                  `json:"page_token"`
}

// referenceAuditPage is what c.JSON answered for page.
func referenceAuditPage(page *models.AuditPage) ([]byte, error) {
	body := auditPageJSON{Data: make([]respond.AuditEventJSON, len(page.Events))}
	for i, e := range page.Events {
		body.Data[i] = respond.AuditEvent(e)
	}
	if page.NextToken != "" {
		body.PageToken = &page.NextToken
	}
	return json.Marshal(body)
}

// auditDetailsTexts are stored details: as json.Marshal writes them, as
// another writer might (spaces, raw <>& and U+2028, escapes), empty, and
// not JSON at all.
var auditDetailsTexts = []string{
	"", "{}", `{"name":"fs-1"}`, `{"name": "a b", "n": [1, 2.5e3, -0], "ok": true, "none": null}`,
	"{\n\t\"nested\" : { \"x\" : [ ] } \r\n}", `{"html":"\u003cb\u003e \u0026"}`, `{"html":"<b> & </b>"}`,
	"{\"sep\":\"\u2028\u2029\"}", `{"esc":"quote \" back \\ \/ \n \u0000 \ud83d\ude80"}`, `{"uni":"é 日本 🚀"}`,
	`{"k":"\\"}`, `{"k":"\\\" <"}`, ` {"padded":1} `, `[1,"<"]`, `"just a string"`, `42`,
	`{`, `{"a":}`, `{"a":1}x`, "{\"bad\":\"\xff\"}", `nope`,
}

// auditEventsTable covers every field's shapes: nil and non-nil pointers,
// no, empty and many resource names, and strings with every escape.
func auditEventsTable() []models.AuditEvent {
	at := time.Date(2026, 3, 1, 12, 0, 0, 123456000, time.FixedZone("x", 3600))
	var out []models.AuditEvent
	for i, s := range trickyStrings {
		e := models.AuditEvent{ID: models.NewID(), EventTime: at.Add(time.Duration(i) * time.Hour),
			ServiceName: "cloud", ResourceName: s, Action: s, CatalogVersion: models.AuditCatalogVersion}
		if i%2 == 0 {
			e.ActorLRN, e.ResourceOwnerLRN, e.RequestAPIKeyLRN = &trickyStrings[i], &trickyStrings[(i+1)%len(trickyStrings)], &s
		}
		switch i % 3 {
		case 1:
			e.ResourceLRNs = []string{}
		case 2:
			e.ResourceLRNs = append([]string{"lrn:cloud:filesystem:" + models.NewID()}, trickyStrings...)
		}
		if d := auditDetailsTexts[i%len(auditDetailsTexts)]; json.Valid([]byte(d)) || d == "" {
			e.AdditionalDetails = models.AuditDetails(d)
		}
		out = append(out, e)
	}
	return out
}

func TestAuditPageEncodesAsEncodingJSON(t *testing.T) {
	events := auditEventsTable()
	for _, page := range []*models.AuditPage{
		{}, {Events: []models.AuditEvent{}}, {Events: events[:1]}, {Events: events},
		{Events: events, NextToken: "tok<en>&\u2028"}, {Events: events[:2], NextToken: "plain-token"},
	} {
		checkAuditPage(t, page)
	}
}

// Details in every stored form are written as encoding/json writes a
// json.Marshaler's output, and the invalid ones are refused as it does.
func TestAuditDetailsEncodeAsEncodingJSON(t *testing.T) {
	for _, d := range auditDetailsTexts {
		checkAuditPage(t, &models.AuditPage{Events: []models.AuditEvent{{AdditionalDetails: models.AuditDetails(d)}}})
	}
}

func FuzzAuditPageEncoding(f *testing.F) {
	for i, s := range trickyStrings {
		f.Add(s, []byte(auditDetailsTexts[i%len(auditDetailsTexts)]), uint8(i))
	}
	f.Fuzz(func(t *testing.T, s string, details []byte, shape uint8) {
		e := models.AuditEvent{ID: s, EventTime: time.Unix(int64(len(s))*1e6, int64(shape)*1e3), ServiceName: s,
			ResourceName: s, Action: s, CatalogVersion: s, AdditionalDetails: models.AuditDetails(details)}
		if shape&1 != 0 {
			e.ActorLRN, e.ResourceOwnerLRN, e.RequestAPIKeyLRN = &s, &s, &s
		}
		if shape&2 != 0 {
			e.ResourceLRNs = strings.Split(s, ",")
		} else if shape&4 != 0 {
			e.ResourceLRNs = []string{}
		}
		page := &models.AuditPage{Events: []models.AuditEvent{e, e}}
		if shape&8 != 0 {
			page.NextToken = s
		}
		checkAuditPage(t, page)
	})
}

// checkAuditPage fails unless appendAuditPage writes the reference's bytes,
// or fails where the reference fails.
func checkAuditPage(t *testing.T, page *models.AuditPage) {
	t.Helper()
	want, wantErr := referenceAuditPage(page)
	got, err := appendAuditPage([]byte("prefix"), page)
	if wantErr != nil || err != nil {
		if (wantErr == nil) != (err == nil) {
			t.Fatalf("appendAuditPage error %v; encoding/json's %v", err, wantErr)
		}
		return
	}
	if got = bytes.TrimPrefix(got, []byte("prefix")); !bytes.Equal(got, want) {
		t.Fatalf("encoded\n%s\nwant\n%s", got, want)
	}
}

// benchAuditPage is a full page as the load test's accounts hold it.
func benchAuditPage() *models.AuditPage {
	at := time.Now().UTC()
	actor, owner := "lrn:cloud:user:"+models.NewID(), "lrn:cloud:account:"+models.NewID()
	page := &models.AuditPage{Events: make([]models.AuditEvent, models.AuditPageSize), NextToken: strings.Repeat("t0Ken-", 16)}
	for i := range page.Events {
		page.Events[i] = models.AuditEvent{ID: models.NewID(), EventTime: at.Add(time.Duration(i) * time.Second),
			ServiceName: "cloud", ResourceName: "filesystem", Action: "created", CatalogVersion: models.AuditCatalogVersion,
			ActorLRN: &actor, ResourceLRNs: []string{"lrn:cloud:filesystem:" + models.NewID()}, ResourceOwnerLRN: &owner,
			AdditionalDetails: models.AuditDetails(fmt.Sprintf(`{"name":"bench-%d","region":"us-east-1"}`, i))}
	}
	return page
}

// BenchmarkAuditPageEncoding compares encoding one 100-event page as the
// handler did (encoding/json) and as it does now.
func BenchmarkAuditPageEncoding(b *testing.B) {
	page := benchAuditPage()
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := referenceAuditPage(page); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("append", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := encodeAuditPage(page); err != nil {
				b.Fatal(err)
			}
		}
	})
}
