// Package static holds the dashboard's stylesheet, script and vendored
// htmx, embedded in the binary. Each file is served under a name that
// carries a hash of its content, so browsers may cache it for a year and
// still never run a stale copy after an upgrade.
package static

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"path"
	"strings"
)

//go:embed app.css app.js drafts.js localtime.js passkeys.js search.js icon.svg vendor
var files embed.FS

// Asset is one embedded file.
type Asset struct {
	Body        []byte
	ContentType string
}

var (
	byName   = map[string]string{} // "app.css" -> "app.1a2b3c4d5e.css"
	byHashed = map[string]*Asset{} // fingerprinted name -> file
	byPlain  = map[string]*Asset{} // plain name -> file
)

func init() {
	err := fs.WalkDir(files, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(name, ".go") {
			return err
		}
		body, err := files.ReadFile(name)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(body)
		hashed := fingerprint(name, hex.EncodeToString(sum[:5]))
		a := &Asset{Body: body, ContentType: contentType(name)}
		byName[name], byHashed[hashed], byPlain[name] = hashed, a, a
		return nil
	})
	if err != nil {
		panic(err) // the embedded tree is fixed at build time
	}
}

// fingerprint puts the hash before the extension: vendor/htmx.min.js
// becomes vendor/htmx.min.<hash>.js.
func fingerprint(name, hash string) string {
	ext := path.Ext(name)
	return strings.TrimSuffix(name, ext) + "." + hash + ext
}

func contentType(name string) string {
	switch path.Ext(name) {
	case ".css":
		return "text/css; charset=utf-8"
	case ".js":
		return "text/javascript; charset=utf-8"
	case ".svg":
		return "image/svg+xml"
	}
	return "text/plain; charset=utf-8"
}

// Path returns the URL of the named asset ("app.css"), fingerprinted.
// An unknown name is a programming error and panics, so a typo fails the
// first test that renders the page.
func Path(name string) string {
	hashed, ok := byName[name]
	if !ok {
		panic("static: no asset " + name)
	}
	return "/static/" + hashed
}

// Lookup finds an asset by the name in its URL (after /static/).
// Fingerprinted names are immutable; plain names (a LICENSE linked by
// hand) are found too but may change.
func Lookup(name string) (a *Asset, immutable, ok bool) {
	if a, ok := byHashed[name]; ok {
		return a, true, true
	}
	a, ok = byPlain[name]
	return a, false, ok
}
