package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"cloudplane/models"
)

// attachmentBytes are not text, so a copy that treats them as text fails.
var attachmentBytes = []byte{0x00, 0xff, 0xfe, 'P', 'K', 0x03, 0x04, 0x80, '\n', 0x00}

// attachFile opens a ticket for actor with attachmentBytes attached and
// returns the ticket's id.
func attachFile(t *testing.T, store *models.Store, actor models.Actor) string {
	t.Helper()
	ctx := context.Background()
	tk, err := store.CreateTicket(ctx, actor, models.CreateTicketInput{Subject: "with a file", Description: "d", Type: models.TicketServiceRequest})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.AttachFile(ctx, actor, tk.ID, models.InitiateAttachmentInput{Filename: "core.bin", ContentType: "application/octet-stream"},
		attachmentBytes); err != nil {
		t.Fatal(err)
	}
	return tk.ID
}

// expectAttachment downloads the ticket's one attachment from the server
// at base, through the API, and fails unless it is attachmentBytes.
func expectAttachment(t *testing.T, base, key, ticketID string) {
	t.Helper()
	var list struct {
		Data struct {
			Attachments []struct{ ID string } `json:"attachments"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(apiGet(t, base, key, "/api/v1/tickets/"+ticketID+"/attachments")), &list); err != nil || len(list.Data.Attachments) != 1 {
		t.Fatalf("attachments: %+v, %v", list, err)
	}
	var dl struct {
		Data struct {
			DownloadURL string `json:"download_url"`
		} `json:"data"`
	}
	body := apiGet(t, base, key, "/api/v1/tickets/"+ticketID+"/attachments/"+list.Data.Attachments[0].ID+"/download")
	if err := json.Unmarshal([]byte(body), &dl); err != nil {
		t.Fatal(err)
	}
	res, err := http.Get(dl.Data.DownloadURL)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	got, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK || !bytes.Equal(got, attachmentBytes) {
		t.Fatalf("download: %d %q, want %q", res.StatusCode, got, attachmentBytes)
	}
}
