#!/usr/bin/env bash
# Builds a pinned Go tool from the Go module proxy, offline-safe, and links it
# into bin/. Why a throw-away module instead of `go install pkg@version`: the
# proxy refuses the version *list* of some modules, which `go install` needs;
# a module that requires one exact version does not.
#
# The binary is cached by name and version outside the repository so a fresh
# clone (CI) reuses a previous build:
#   ${MONGOBENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mongobench}/tools/<name>-<version>
#
# usage: hack/build-tool.sh <name> <module> <version> <main package> [go mod edit args...]
set -euo pipefail

name=$1 module=$2 version=$3 pkg=$4
shift 4

root=$(cd "$(dirname "$0")/.." && pwd)
cache=${MONGOBENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mongobench}
out="$cache/tools/$name-$version"
export GOTOOLCHAIN=local GOFLAGS=-buildvcs=false

if [ ! -x "$out" ]; then
  src="$cache/src/$name-$version"
  rm -rf "$src" && mkdir -p "$src" "$cache/tools"
  echo ">> building $name $version from the Go module proxy (cached in $out)" >&2
  (
    cd "$src"
    go mod init "mongobench.local/tools/$name" >/dev/null 2>&1
    go mod edit -require="$module@$version"
    for edit in "$@"; do go mod edit "$edit"; done
    printf '//go:build tools\n\npackage tools\n\nimport _ "%s"\n' "$pkg" >tools.go
    go mod tidy >/dev/null
    CGO_ENABLED=0 go build -trimpath -o "$out.tmp" "$pkg"
    mv "$out.tmp" "$out"
  )
fi

mkdir -p "$root/bin"
ln -sf "$out" "$root/bin/$name"
