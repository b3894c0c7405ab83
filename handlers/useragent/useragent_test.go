package useragent_test

import (
	"testing"

	"cloudplane/handlers/useragent"
)

func TestDescribe(t *testing.T) {
	for _, c := range []struct{ header, want string }{
		{"Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0", "Firefox on Linux"},
		{"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36", "Chrome on Windows"},
		{"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Safari/605.1.15", "Safari on MacOS"},
		{"Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1", "Safari on iOS"},
		{"", "Unknown browser"},
		{"<script>alert(1)</script>", "Unknown browser"},
	} {
		if got := useragent.Describe(c.header); got != c.want {
			t.Errorf("Describe(%q) = %q, want %q", c.header, got, c.want)
		}
	}
}
