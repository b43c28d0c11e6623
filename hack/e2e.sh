#!/usr/bin/env bash
# make test-e2e: the end-to-end suite against real MongoDB on kind.
# Creates the cluster (or reuses KIND_CLUSTER), builds and loads both images,
# installs the chart, runs test/e2e (build tag e2e), collects the manager's
# logs on failure, and deletes the cluster unless E2E_KEEP=1.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
cluster=${KIND_CLUSTER:-mongobench-e2e}
export KUBECONFIG=$root/bin/kubeconfig-$cluster
hack/kind-up.sh "$cluster" "make test-e2e"

version=$(sed -n 's/^appVersion: *"\{0,1\}\([^"]*\)"\{0,1\}/\1/p' charts/mongobench/Chart.yaml)
loader=${LOADER_IMG:-ghcr.io/mongobench/mongobench-loader:$version}
CGO_ENABLED=0 go build -trimpath -o "$root/bin/kubectl-mongobench" ./cmd/kubectl-mongobench
status=0
E2E_PLUGIN=$root/bin/kubectl-mongobench E2E_HELM=$root/bin/helm E2E_KUBECTL=$root/bin/kubectl E2E_CHART=$root/charts/mongobench E2E_LOADER_TAG=${loader##*:} \
  go test -tags e2e -count=1 -v -timeout 75m ./test/e2e/... || status=$?
if [ "$status" -ne 0 ]; then
  echo ">> manager logs"
  "$root/bin/kubectl" -n mongobench-system logs deploy/mongobench --tail=300 || true
fi
if [ "${E2E_KEEP:-0}" != 1 ]; then "$root/bin/kind" delete cluster --name "$cluster"; fi
exit "$status"
