// Package useragent names a browser and its operating system from a
// User-Agent header, for people reading their list of sessions and the
// new sign-in mail ("Firefox on Linux"). It wraps
// github.com/medama-io/go-useragent: a maintained, dependency-light
// parser whose rules ship embedded (no download at start), which only
// classifies and never guesses from an unknown string; the parser's trie
// is built once, on first use. A header it cannot place reads as
// "Unknown browser", never as the raw header, which a stranger chooses.
package useragent

import (
	"sync"

	"github.com/medama-io/go-useragent"
)

var parser = sync.OnceValue(useragent.NewParser)

// Describe returns "<browser> on <OS>", or whichever of the two is
// known, or "Unknown browser".
func Describe(header string) string {
	if header == "" {
		return "Unknown browser"
	}
	ua := parser().Parse(header)
	browser, os := string(ua.Browser()), string(ua.OS())
	switch {
	case browser != "" && os != "":
		return browser + " on " + os
	case browser != "":
		return browser
	case os != "":
		return "A browser on " + os
	}
	return "Unknown browser"
}
