package api

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"cloudplane/models"
)

// Strings that exercise every escape encoding/json makes.
var trickyStrings = []string{
	"", "plain", `quote " and backslash \`, "<script>&amp;</script>", "\x00\x01\x1f\x7f",
	"\b\f\n\r\t", "é ü 日本 🚀", "\u2028 and \u2029", "bad \xff utf-8 \xc3", "\xe2\x80", "o'brien+tag@example.com",
}

func FuzzAppendJSONString(f *testing.F) {
	for _, s := range trickyStrings {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendJSONString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("appendJSONString(%q) = %s, want %s", s, got, want)
		}
	})
}

// The hand-encoded list is byte for byte what ok() writes with
// encoding/json, whatever the strings in it.
func TestFilesystemListEncodesAsEncodingJSON(t *testing.T) {
	created := time.Date(2026, 1, 2, 3, 4, 5, 678, time.FixedZone("x", 3600))
	for _, list := range [][]models.FilesystemView{nil, {}, views(created)} {
		want, err := json.Marshal(dataBody[[]filesystemJSON]{Data: filesystemJSONs(list)})
		if err != nil {
			t.Fatal(err)
		}
		if got := appendFilesystemList(nil, list); !bytes.Equal(got, want) {
			t.Fatalf("encoded\n%s\nwant\n%s", got, want)
		}
	}
}

func views(created time.Time) []models.FilesystemView {
	var out []models.FilesystemView
	for i, s := range trickyStrings {
		out = append(out, models.FilesystemView{
			Filesystem: models.Filesystem{ID: s, Name: s, RegionName: []string{"us-east-1", s}[i%2],
				CreatedByUserID: s, BytesUsed: int64(i-3) << 40, CreatedAt: created},
			CreatorEmail: s, CreatorStatus: s, InUse: i%2 == 0,
		})
	}
	return out
}

func filesystemJSONs(list []models.FilesystemView) []filesystemJSON {
	out := make([]filesystemJSON, len(list))
	for i := range list {
		out[i] = newFilesystemJSON(&list[i])
	}
	return out
}

// benchViews are ten filesystems as the benchmark harness seeds them.
func benchViews() []models.FilesystemView {
	list := make([]models.FilesystemView, 10)
	for i := range list {
		list[i] = models.FilesystemView{
			Filesystem: models.Filesystem{ID: models.NewID(), Name: "filesystem-0" + string(rune('0'+i)),
				RegionName: "us-east-1", CreatedByUserID: models.NewID(), CreatedAt: time.Now().UTC()},
			CreatorEmail: "bench0001@example.com", CreatorStatus: models.UserActive,
		}
	}
	return list
}

func BenchmarkFilesystemListJSON(b *testing.B) {
	list := benchViews()
	b.Run("append", func(b *testing.B) {
		b.ReportAllocs()
		var buf []byte
		for b.Loop() {
			buf = appendFilesystemList(buf[:0], list)
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(dataBody[[]filesystemJSON]{Data: filesystemJSONs(list)}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
