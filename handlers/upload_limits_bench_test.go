package handlers

import (
	"bufio"
	"bytes"
	"strings"
	"testing"

	"github.com/valyala/fasthttp"
)

// BenchmarkBufferBody reads requests as the server does with
// StreamRequestBody (head, then the body stream) and runs bufferBody on
// them: its allocations per request are what streaming costs every
// ordinary request (go test ./handlers -run '^$' -bench BufferBody -benchmem).
func BenchmarkBufferBody(b *testing.B) {
	small := `{"name":"upper","region":"us-east-1"}`
	large := `{"description":"` + strings.Repeat("x", 64<<10) + `"}`
	for name, raw := range map[string]string{
		"small JSON": "POST /api/v1/filesystems HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: " +
			itoa(len(small)) + "\r\n\r\n" + small,
		"64 KiB JSON": "POST /api/v1/filesystems HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: " +
			itoa(len(large)) + "\r\n\r\n" + large,
	} {
		b.Run(name, func(b *testing.B) {
			request := []byte(raw)
			body := len(request) - bytes.Index(request, []byte("\r\n\r\n")) - 4
			var ctx fasthttp.RequestCtx
			rd := bytes.NewReader(request)
			br := bufio.NewReaderSize(rd, 4096)
			refuse := func(_ *fasthttp.RequestCtx, err error) { b.Fatal(err) }
			b.ReportAllocs()
			for b.Loop() {
				rd.Reset(request)
				br.Reset(rd)
				ctx.Request.Reset()
				if err := ctx.Request.Header.Read(br); err != nil {
					b.Fatal(err)
				}
				if err := ctx.Request.ContinueReadBodyStream(br, BodyLimit, false); err != nil {
					b.Fatal(err)
				}
				if !bufferBody(&ctx, refuse) || len(ctx.Request.Body()) != body {
					b.Fatal("the body was not read whole")
				}
			}
		})
	}
}
