#!/usr/bin/env bash
# Builds Tilt from Go source (the module proxy is the only reachable source; Tilt is not
# packaged for Debian) into ${CAPSTAN_CACHE:-$HOME/.cache/capstan}/tilt/<version>/tilt.
# A binary already in the cache is never rebuilt. `go install` refuses Tilt because its
# go.mod has replace directives, so a scratch module repeats them, vendors, and builds with
# cgo (tree-sitter needs it). A source build has no embedded web UI: a minimal index.html is
# vendored in, and Tilt must then run with --web-mode=prod. Cold: ~7 min on 2 cores.
set -euo pipefail

version=${TILT_VERSION:-v0.33.21}
cache=${CAPSTAN_CACHE:-$HOME/.cache/capstan}
out="$cache/tilt/$version"
if [ -x "$out/tilt" ]; then
  echo "tilt $version: present in $out/tilt"
  exit 0
fi

mkdir -p "$out"
tmp=$(mktemp -d "$out/.build.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
export GOWORK=off GOFLAGS=-mod=mod CGO_ENABLED=1
start=$SECONDS
echo "$(date +%T) tilt $version: scratch module in $tmp (tilt's three replaces repeated)"
cat >go.mod <<MOD
module capstan.dev/tilt-build

go 1.26

tool github.com/tilt-dev/tilt/cmd/tilt

require github.com/tilt-dev/tilt $version

replace (
	github.com/emicklei/go-restful/v3 => github.com/emicklei/go-restful/v3 v3.9.0
	github.com/pkg/browser => github.com/tilt-dev/browser v0.0.1
	k8s.io/apimachinery => github.com/tilt-dev/apimachinery v0.31.0-tilt-20240902
)
MOD
echo "$(date +%T) go mod tidy (downloads tilt's dependencies from the module proxy)"
go mod tidy
echo "$(date +%T) go mod vendor"
go mod vendor
echo "$(date +%T) adding a minimal web UI index.html (run tilt with --web-mode=prod)"
mkdir -p vendor/github.com/tilt-dev/tilt/pkg/assets/build
cat >vendor/github.com/tilt-dev/tilt/pkg/assets/build/index.html <<'HTML'
<!doctype html><html><head><title>Tilt</title></head>
<body>Tilt built from source without its web UI: use the CLI (tilt get uiresources, tilt logs).</body></html>
HTML
echo "$(date +%T) go build -mod=vendor github.com/tilt-dev/tilt/cmd/tilt (cgo)"
go build -mod=vendor -trimpath -o "$tmp/tilt" github.com/tilt-dev/tilt/cmd/tilt
mv "$tmp/tilt" "$out/tilt"   # atomic: a killed build never leaves a half-written binary in the cache
echo "$(date +%T) tilt $version built in $((SECONDS-start))s: $out/tilt"
"$out/tilt" version
