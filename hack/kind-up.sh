#!/usr/bin/env bash
# Creates (or reuses) a kind cluster, builds the manager and loader images,
# loads them into the cluster and installs the chart with them. Used by
# make demo and make test-e2e. Usage: kind-up.sh CLUSTER [what-for]
# KUBECONFIG must name the file to write the cluster's kubeconfig to.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
cluster=${1:?usage: kind-up.sh CLUSTER}
bin=$root/bin
: "${KUBECONFIG:?set KUBECONFIG to the kubeconfig file to write}"

hack/require-docker.sh "${2:-this target}"
version=$(sed -n 's/^appVersion: *"\{0,1\}\([^"]*\)"\{0,1\}/\1/p' charts/mongobench/Chart.yaml)
img=${IMG:-ghcr.io/mongobench/mongobench:$version}
loader=${LOADER_IMG:-ghcr.io/mongobench/mongobench-loader:$version}

echo ">> kind cluster $cluster (1 control plane, 2 workers)"
if ! "$bin/kind" get clusters 2>/dev/null | grep -qx "$cluster"; then
  "$bin/kind" create cluster --name "$cluster" --config hack/kind-config.yaml --kubeconfig "$KUBECONFIG" --wait 5m
else
  "$bin/kind" export kubeconfig --name "$cluster" --kubeconfig "$KUBECONFIG"
fi

echo ">> images $img and $loader"
# --load: with a buildx builder of the docker-container driver, the image
# would otherwise stay in the builder's cache and never reach the engine.
docker build --load -t "$img" --build-arg VERSION="$version" -f Dockerfile .
docker build --load -t "$loader" --build-arg VERSION="$version" -f loader-image/Dockerfile .
# kind load docker-image fails with Docker's containerd image store
# (kubernetes-sigs/kind#3795); an image archive works with every store.
if ! "$bin/kind" load docker-image --name "$cluster" "$img" "$loader"; then
  echo ">> kind load docker-image failed; loading an image archive instead"
  archive=$(mktemp "${TMPDIR:-/tmp}/mongobench-images.XXXXXX.tar")
  trap 'rm -f "$archive"' EXIT
  docker save -o "$archive" "$img" "$loader"
  "$bin/kind" load image-archive --name "$cluster" "$archive"
fi

echo ">> helm install mongobench"
"$bin/helm" upgrade --install mongobench charts/mongobench -n mongobench-system --create-namespace \
  --set image.repository="${img%:*}" --set image.tag="${img##*:}" --set image.pullPolicy=IfNotPresent \
  --set loaderImage.repository="${loader%:*}" --set loaderImage.tag="${loader##*:}" --set loaderImage.pullPolicy=IfNotPresent \
  --wait --timeout 5m
