#!/usr/bin/env bash
# Provides the envtest binaries (etcd, kube-apiserver, kubectl) in
# bin/k8s/<version>-linux-amd64, the layout setup-envtest and our suites use,
# and beside them kube-scheduler: placement tests run the real scheduler
# against the envtest API server (exclusive nodes are the scheduler's job).
#
# Offline machines (CI here) cannot download them, so they are built from Go
# module sources: etcd from go.etcd.io/etcd/server/v3, kube-apiserver and
# kubectl from k8s.io/kubernetes with every ./staging replace pinned to the
# matching published module version. A cold build takes ~7 minutes on 2 cores;
# the result is cached by version outside the repository.
#
# Prints the assets directory (for KUBEBUILDER_ASSETS) on stdout.
set -euo pipefail

K8S_VERSION=${K8S_VERSION:-1.36.3}
ETCD_VERSION=${ETCD_VERSION:-v3.6.16}

root=$(cd "$(dirname "$0")/.." && pwd)
cache=${MONGOBENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mongobench}
arch=$(go env GOARCH)
os=$(go env GOOS)
assets="$root/bin/k8s/$K8S_VERSION-$os-$arch"
cached="$cache/k8s/$K8S_VERSION-$os-$arch"
export GOTOOLCHAIN=local GOFLAGS=-buildvcs=false CGO_ENABLED=0

binaries="etcd kube-apiserver kubectl kube-scheduler"
have() { for b in $binaries; do [ -x "$1/$b" ] || return 1; done; }

if have "$assets"; then echo "$assets"; exit 0; fi

if ! have "$cached"; then
  mkdir -p "$cached"
  # Online machines: setup-envtest may download the published binaries
  # (it has no kube-scheduler: that one is always built below).
  if [ "${ENVTEST_TRY_DOWNLOAD:-1}" = 1 ] && [ -x "$root/bin/setup-envtest" ]; then
    if dir=$("$root/bin/setup-envtest" use "$K8S_VERSION" --bin-dir "$cache/setup-envtest" -p path 2>/dev/null) &&
      [ -x "$dir/etcd" ] && [ -x "$dir/kube-apiserver" ] && [ -x "$dir/kubectl" ]; then
      cp "$dir"/etcd "$dir"/kube-apiserver "$dir"/kubectl "$cached/"
    fi
  fi
fi

if ! have "$cached"; then
  echo ">> building the envtest binaries missing from $cached for Kubernetes $K8S_VERSION and etcd $ETCD_VERSION from module sources (one-time, ~7 min)" >&2
  src="$cache/src/envtest-$K8S_VERSION"
  rm -rf "$src" && mkdir -p "$src/etcd" "$src/kube"

  # etcd: a main calling etcdmain.Main, exactly what the etcd binary does.
  [ -x "$cached/etcd" ] || (
    cd "$src/etcd"
    go mod init mongobench.local/etcd >/dev/null 2>&1
    go mod edit -require="go.etcd.io/etcd/server/v3@$ETCD_VERSION"
    cat >main.go <<'GO'
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
GO
    go mod tidy >/dev/null
    go build -trimpath -o "$cached/etcd.tmp" .
    mv "$cached/etcd.tmp" "$cached/etcd"
  )

  # kube-apiserver, kubectl and kube-scheduler: k8s.io/kubernetes replaces its staging
  # modules with ./staging paths that do not exist in the module zip; pin
  # each to the published v0.<minor>.<patch> tag instead.
  (
    cd "$src/kube"
    go mod init mongobench.local/kube >/dev/null 2>&1
    go mod edit -require="k8s.io/kubernetes@v$K8S_VERSION"
    gomod=$(go mod download -json "k8s.io/kubernetes@v$K8S_VERSION" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
    staging_version="v0.${K8S_VERSION#*.}"
    for m in $(awk '$2 == "=>" && $3 ~ /^\.\/staging/ {print $1}' "$gomod"); do
      go mod edit -replace="$m=$m@$staging_version"
    done
    cat >tools.go <<'GO'
//go:build tools

package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
GO
    go mod tidy >/dev/null
    major=${K8S_VERSION%%.*}
    minor=${K8S_VERSION#*.}; minor=${minor%%.*}
    ldflags=""
    for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
      ldflags="$ldflags -X $p.gitVersion=v$K8S_VERSION -X $p.gitMajor=$major -X $p.gitMinor=$minor"
    done
    for b in kube-apiserver kubectl kube-scheduler; do
      [ -x "$cached/$b" ] && continue
      go build -trimpath -ldflags "$ldflags" -o "$cached/$b.tmp" "k8s.io/kubernetes/cmd/$b"
      mv "$cached/$b.tmp" "$cached/$b"
    done
  )
fi

mkdir -p "$assets"
for b in $binaries; do ln -sf "$cached/$b" "$assets/$b"; done
echo "$assets"
