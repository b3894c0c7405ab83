#!/usr/bin/env bash
# Fetches the dashboard's third-party assets from npm into static/vendor/,
# where they are committed and embedded, so the server needs no CDN and a
# build needs no network. Run it (task assets) only to change a version.
set -euo pipefail

HTMX_VERSION=2.0.11
# The registry's integrity for htmx.org-$HTMX_VERSION.tgz; npm checks the
# download against the registry, this checks the registry against us.
HTMX_INTEGRITY=sha512-Thx/WtpeOQqSrqBCw/A1cwGJGg4UrVa3+sW0GmrM3p4gJgO89ecH4qtbnyzDDWFvBTqjnIMCgELTNt636dtamA==

root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

npm pack --silent "htmx.org@$HTMX_VERSION" >/dev/null
tarball="htmx.org-$HTMX_VERSION.tgz"
got="sha512-$(openssl dgst -sha512 -binary "$tarball" | base64 -w0)"
if [ "$got" != "$HTMX_INTEGRITY" ]; then
	echo "fetch-assets: $tarball has integrity $got, want $HTMX_INTEGRITY" >&2
	exit 1
fi
tar -xzf "$tarball"

vendor="$root/static/vendor"
mkdir -p "$vendor"
install -m 0644 package/dist/htmx.min.js "$vendor/htmx.min.js"
install -m 0644 package/LICENSE "$vendor/htmx.LICENSE"
echo "fetch-assets: htmx.org $HTMX_VERSION -> static/vendor/"
