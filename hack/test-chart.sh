#!/usr/bin/env bash
# Verifies the Helm chart (and the kustomize install) without Docker:
#   1. helm lint, helm template with the default values and every ci/ values file;
#   2. values.schema.json rejects a typo;
#   3. helm install into a real kube-apiserver (envtest binaries, hack/apiserver.sh):
#      every object accepted by server-side validation, the CRD Established,
#      the sample BenchmarkRuns accepted; a namespace-scoped release too;
#   4. kustomize build config/default accepted by a server-side dry run;
#   5. default image references agree everywhere (chart appVersion).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
helm=$root/bin/helm
kustomize=$root/bin/kustomize
chart=charts/mongobench
export HELM_CACHE_HOME HELM_CONFIG_HOME HELM_DATA_HOME
work=$(mktemp -d)
HELM_CACHE_HOME=$work/helm/cache HELM_CONFIG_HOME=$work/helm/config HELM_DATA_HOME=$work/helm/data
trap 'hack/apiserver.sh stop "$work/api" || true; rm -rf "$work"' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }
# helm built from source defaults to an old Kubernetes version for template.
tmpl() { "$helm" template --kube-version "v${K8S_VERSION:-1.36.3}" "$@"; }
step() { echo ">> $*"; }

step "helm lint"
"$helm" lint --strict "$chart"
for v in "$chart"/ci/*-values.yaml; do "$helm" lint --strict "$chart" -f "$v"; done

step "helm template"
app=$(sed -n 's/^appVersion: *"\{0,1\}\([^"]*\)"\{0,1\}/\1/p' "$chart/Chart.yaml")
tmpl mb "$chart" -n mongobench-system >"$work/default.yaml"
grep -q -- "--loader-image=ghcr.io/mongobench/mongobench-loader:$app" "$work/default.yaml" || fail "default loader image is not pinned to appVersion $app"
grep -q "image: ghcr.io/mongobench/mongobench:$app" "$work/default.yaml" || fail "default manager image is not pinned to appVersion $app"
grep -q "kind: ClusterRole" "$work/default.yaml" || fail "cluster scope renders no ClusterRole"
tmpl mb "$chart" -n mongobench-system -f "$chart/ci/namespaced-values.yaml" >"$work/namespaced.yaml"
grep -q -- "--watch-namespace=benchmarks" "$work/namespaced.yaml" || fail "namespaced mode does not pass --watch-namespace"
if grep -q "name: mb-mongobench-manager" <(grep -A3 "kind: ClusterRole$" "$work/namespaced.yaml"); then fail "namespaced mode renders the manager ClusterRole"; fi
tmpl mb "$chart" -n mongobench-system -f "$chart/ci/all-options-values.yaml" >"$work/all.yaml"
for want in "kind: ServiceMonitor" "honorLabels: true" "--loader-image=registry.example.com/mongobench-loader:v9.9.8" "image: registry.example.com/mongobench:v9.9.9" \
    "--zap-log-level=debug" "--metrics-secure=false" "--cluster-domain=cluster.example" "registry-credentials" "system-cluster-critical" \
    "replicas: 2" "containerPort: 9443" "--max-concurrent-reconciles=16" "--bootstrap-timeout=15m"; do
  grep -q -- "$want" "$work/all.yaml" || fail "all-options rendering lacks $want"
done

step "values.schema.json rejects typos"
if tmpl mb "$chart" --set controler.maxConcurrentReconciles=2 >/dev/null 2>"$work/typo.err"; then fail "a misspelled value was accepted"; fi
grep -q "controler" "$work/typo.err" || fail "the schema error does not name the misspelled key: $(cat "$work/typo.err")"
if tmpl mb "$chart" --set rbac.scope=everywhere >/dev/null 2>&1; then fail "rbac.scope=everywhere was accepted"; fi

step "chart files generated from the markers are in sync with config/"
cmp -s config/crd/bases/bench.mongobench.io_benchmarkruns.yaml "$chart/crds/bench.mongobench.io_benchmarkruns.yaml" || fail "chart CRD differs from config/crd (run make manifests)"
diff <(sed -n '/^rules:/,$p' config/rbac/role.yaml) <(sed -n '/^rules:/,$p' "$chart/files/manager-rules.yaml") >/dev/null || fail "chart RBAC rules differ from config/rbac/role.yaml (run make manifests)"

step "image references agree on $app"
grep -q "var Version = \"$app\"" internal/version/version.go || fail "internal/version.Version is not $app"
grep -q "newTag: $app" config/manager/kustomization.yaml || fail "config/manager image tag is not $app"
grep -q -- "--loader-image=ghcr.io/mongobench/mongobench-loader:$app" config/manager/manager.yaml || fail "config/manager loader image is not $app"

step "start kube-apiserver"
eval "$(hack/apiserver.sh start "$work/api")"
k() { "$KUBECTL" "$@"; }

step "helm install (cluster scope)"
"$helm" install mb "$chart" -n mongobench-system --create-namespace --wait=false
k wait --for condition=established --timeout=60s crd/benchmarkruns.bench.mongobench.io
for kind in deployment/mb-mongobench serviceaccount/mb-mongobench service/mb-mongobench-metrics role/mb-mongobench-leader-election; do
  k -n mongobench-system get "$kind" >/dev/null || fail "$kind not installed"
done
k get clusterrole/mb-mongobench-manager clusterrolebinding/mb-mongobench-manager clusterrole/mb-mongobench-metrics-reader >/dev/null

step "sample BenchmarkRuns are accepted"
k create namespace samples >/dev/null
for f in config/samples/bench_*.yaml; do k apply --server-side -n samples -f "$f" >/dev/null || fail "sample $f rejected"; done
k -n samples get benchmarkruns

step "helm install (namespace scope) into a second namespace"
k create namespace benchmarks >/dev/null
"$helm" install mbns "$chart" -n benchmarks -f "$chart/ci/namespaced-values.yaml" --wait=false
k -n benchmarks get role/mbns-mongobench-manager rolebinding/mbns-mongobench-manager deployment/mbns-mongobench >/dev/null
if k get clusterrole/mbns-mongobench-manager >/dev/null 2>&1; then fail "namespaced release created a manager ClusterRole"; fi

step "every documented option passes server-side validation (dry run)"
tmpl mball "$chart" -n mongobench-system -f "$chart/ci/all-options-values.yaml" --set metrics.serviceMonitor.enabled=false --skip-crds \
  | k apply --dry-run=server -f - >/dev/null

step "helm upgrade and uninstall"
"$helm" upgrade mb "$chart" -n mongobench-system --set controller.maxConcurrentReconciles=8 --wait=false >/dev/null
k -n mongobench-system get deployment/mb-mongobench -o jsonpath='{.spec.template.spec.containers[0].args}' | grep -q -- "--max-concurrent-reconciles=8" || fail "upgrade did not change the manager's flags"
"$helm" uninstall mbns -n benchmarks >/dev/null
k get crd benchmarkruns.bench.mongobench.io >/dev/null || fail "uninstall removed the CRD (it must keep users' runs)"

step "kustomize install (server-side dry run)"
"$kustomize" build config/default | k apply --server-side --dry-run=server -f - >/dev/null

echo "chart OK"
