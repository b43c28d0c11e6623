#!/usr/bin/env bash
# Verifies the Helm chart (and the kustomize install) without Docker:
#   1. helm lint, helm template with the default values and every ci/ values file;
#   2. values.schema.json rejects a typo;
#   3. helm install into a real kube-apiserver (envtest binaries, hack/apiserver.sh):
#      every object accepted by server-side validation, the CRD Established,
#      the sample BenchmarkRuns accepted; a namespace-scoped release too;
#   4. kustomize build config/default accepted by a server-side dry run;
#   5. default image references agree everywhere (chart appVersion);
#   6. the monitoring values (metrics.podMonitor, metrics.serviceMonitor,
#      grafana.dashboard) rendered with and without each, then installed
#      with the prometheus-operator CRDs from their published YAML
#      (github.com/prometheus-operator/prometheus-operator@$PROMETHEUS_OPERATOR_VERSION
#      from the Go module proxy; if that download fails, only rendered,
#      with a loud warning).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
helm=$root/bin/helm
# The Makefile pins it, like every tool's version.
PROMETHEUS_OPERATOR_VERSION=${PROMETHEUS_OPERATOR_VERSION:?set PROMETHEUS_OPERATOR_VERSION (make test-chart does)}
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
    "replicas: 2" "containerPort: 9443" "--max-concurrent-reconciles=16" "--bootstrap-timeout=15m" \
    "kind: PodMonitor" "- perf" "grafana_folder: Benchmarks" "\"example.com/grafana-dashboard\": \"yes\""; do
  grep -q -- "$want" "$work/all.yaml" || fail "all-options rendering lacks $want"
done

step "values.schema.json rejects typos"
if tmpl mb "$chart" --set controler.maxConcurrentReconciles=2 >/dev/null 2>"$work/typo.err"; then fail "a misspelled value was accepted"; fi
grep -q "controler" "$work/typo.err" || fail "the schema error does not name the misspelled key: $(cat "$work/typo.err")"
if tmpl mb "$chart" --set rbac.scope=everywhere >/dev/null 2>&1; then fail "rbac.scope=everywhere was accepted"; fi

step "monitoring values render with and without each"
show() { tmpl mb "$chart" -n mongobench-system "$@"; }
# present FILE TEXT...: each TEXT is a line of FILE (after leading spaces).
present() { local f=$1; shift; for want in "$@"; do grep -qxF -- "$want" <(sed 's/^ *//' "$f") || fail "$(basename "$f") lacks \"$want\""; done; }
absent() { local f=$1; shift; for bad in "$@"; do if grep -qxF -- "$bad" <(sed 's/^ *//' "$f"); then fail "$(basename "$f") has \"$bad\""; fi; done; }
for kind in PodMonitor ServiceMonitor; do
  if grep -q "^kind: $kind$" "$work/default.yaml"; then fail "the default values render a $kind"; fi
done
if grep -q "grafana_dashboard" "$work/default.yaml"; then fail "the default values render the dashboard ConfigMap"; fi

show --set metrics.podMonitor.enabled=true >"$work/pm.yaml"
present "$work/pm.yaml" "kind: PodMonitor" "name: mb-mongobench-loaders" "namespace: mongobench-system" \
  "app.kubernetes.io/component: loader" "app.kubernetes.io/managed-by: mongobench" "any: true" \
  "- port: metrics" "path: /metrics" "interval: 15s" "honorLabels: true"
if grep -q "^kind: ServiceMonitor$" "$work/pm.yaml"; then fail "metrics.podMonitor renders a ServiceMonitor"; fi
show --set metrics.podMonitor.enabled=true --set metrics.podMonitor.labels.release=kps --set metrics.podMonitor.interval= \
  --set 'metrics.podMonitor.namespaceSelector.matchNames={bench-a,bench-b}' >"$work/pm-opts.yaml"
present "$work/pm-opts.yaml" "release: kps" "matchNames:" "- bench-a" "- bench-b"
absent "$work/pm-opts.yaml" "any: true"
if grep -q "^ *interval:" "$work/pm-opts.yaml"; then fail "an empty metrics.podMonitor.interval is rendered"; fi
show -f "$chart/ci/namespaced-values.yaml" --set metrics.podMonitor.enabled=true >"$work/pm-ns.yaml"
present "$work/pm-ns.yaml" "kind: PodMonitor" "matchNames:" "- benchmarks"
absent "$work/pm-ns.yaml" "any: true"

show --set metrics.serviceMonitor.enabled=true --set metrics.serviceMonitor.labels.release=kps >"$work/sm.yaml"
present "$work/sm.yaml" "kind: ServiceMonitor" "release: kps" "honorLabels: true" "- port: https"
if grep -q "^kind: PodMonitor$" "$work/sm.yaml"; then fail "metrics.serviceMonitor renders a PodMonitor"; fi
show --set metrics.serviceMonitor.enabled=true --set metrics.enabled=false >"$work/sm-off.yaml"
if grep -q "^kind: ServiceMonitor$" "$work/sm-off.yaml"; then fail "a ServiceMonitor without the manager's metrics"; fi

show --set grafana.dashboard.enabled=true --show-only templates/grafana-dashboard.yaml >"$work/dash.yaml"
present "$work/dash.yaml" "kind: ConfigMap" "name: mb-mongobench-dashboard" "namespace: mongobench-system" '"grafana_dashboard": "1"' \
  "mongobench.json: |-" '"uid": "mongobench",'
if grep -q "annotations:" "$work/dash.yaml"; then fail "the dashboard ConfigMap has annotations nobody asked for"; fi
show --set grafana.dashboard.enabled=true --set grafana.dashboard.label=example.com/dashboard --set grafana.dashboard.labelValue=2 \
  --set grafana.dashboard.namespace=monitoring --set grafana.dashboard.annotations.grafana_folder=Benchmarks \
  --show-only templates/grafana-dashboard.yaml >"$work/dash-opts.yaml"
present "$work/dash-opts.yaml" '"example.com/dashboard": "2"' "namespace: monitoring" "grafana_folder: Benchmarks"
absent "$work/dash-opts.yaml" '"grafana_dashboard": "1"'
for v in metrics.podMonitor.enable=true grafana.dashboard.lable=x grafana.dashbord.enabled=true metrics.podMonitor.namespaceSelector.all=true; do
  if show --set "$v" >/dev/null 2>"$work/typo.err"; then fail "the misspelt value $v was accepted"; fi
done
if show --set metrics.podMonitor.interval=15 >/dev/null 2>&1; then fail "metrics.podMonitor.interval=15 (no unit) was accepted"; fi
if show --set "grafana.dashboard.label=bad label" >/dev/null 2>&1; then fail "a label key with a space was accepted"; fi

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

step "prometheus-operator CRDs ${PROMETHEUS_OPERATOR_VERSION} from the Go module proxy"
# The operator publishes its CRDs' YAML in its Go module
# (example/prometheus-operator-crd); the module proxy serves it where
# GitHub is out of reach. Downloaded outside this module so go.mod and
# go.sum stay untouched.
po_crds=""
po_json=""
if po_json=$(cd "$work" && GOFLAGS= go mod download -json "github.com/prometheus-operator/prometheus-operator@${PROMETHEUS_OPERATOR_VERSION}" 2>"$work/po.err"); then
  po_dir=$(python3 -c 'import json, sys; print(json.load(sys.stdin)["Dir"])' <<<"$po_json")
  po_crds=$po_dir/example/prometheus-operator-crd
  for f in podmonitors servicemonitors; do [ -f "$po_crds/monitoring.coreos.com_$f.yaml" ] || fail "$po_crds lacks monitoring.coreos.com_$f.yaml"; done
else
  echo "!!! WARNING: could not download github.com/prometheus-operator/prometheus-operator@${PROMETHEUS_OPERATOR_VERSION} from the Go module proxy:" >&2
  { cat "$work/po.err"; printf '%s\n' "$po_json"; } | sed 's/^/!!!   /' >&2
  echo "!!! WARNING: the PodMonitor and ServiceMonitor are NOT validated against the real CRD schema; only their rendering was checked above" >&2
fi

if [ -n "$po_crds" ]; then
  step "PodMonitor, ServiceMonitor and dashboard installed (server-side validation against the CRDs)"
  k apply --server-side -f "$po_crds/monitoring.coreos.com_podmonitors.yaml" -f "$po_crds/monitoring.coreos.com_servicemonitors.yaml" >/dev/null
  k wait --for condition=established --timeout=60s crd/podmonitors.monitoring.coreos.com crd/servicemonitors.monitoring.coreos.com >/dev/null
  k create namespace observability >/dev/null
  k create namespace monitoring >/dev/null
  "$helm" install mbmon "$chart" -n observability --wait=false \
    --set metrics.podMonitor.enabled=true --set metrics.podMonitor.labels.release=kps \
    --set metrics.serviceMonitor.enabled=true --set metrics.serviceMonitor.labels.release=kps \
    --set grafana.dashboard.enabled=true --set grafana.dashboard.namespace=monitoring \
    --set grafana.dashboard.annotations.grafana_folder=Benchmarks >/dev/null
  # Read back what the API server stored: a field the CRD's schema does
  # not know would have been pruned (or refused).
  [ "$(k -n observability get podmonitor/mbmon-mongobench-loaders -o jsonpath='{.spec.podMetricsEndpoints[0].port} {.spec.podMetricsEndpoints[0].path} {.spec.podMetricsEndpoints[0].honorLabels} {.spec.namespaceSelector.any} {.metadata.labels.release}')" = "metrics /metrics true true kps" ] \
    || fail "the stored PodMonitor differs: $(k -n observability get podmonitor/mbmon-mongobench-loaders -o yaml)"
  [ "$(k -n observability get podmonitor/mbmon-mongobench-loaders -o jsonpath='{.spec.selector.matchLabels}')" = '{"app.kubernetes.io/component":"loader","app.kubernetes.io/managed-by":"mongobench"}' ] \
    || fail "the stored PodMonitor selects other pods: $(k -n observability get podmonitor/mbmon-mongobench-loaders -o jsonpath='{.spec.selector}')"
  [ "$(k -n observability get servicemonitor/mbmon-mongobench -o jsonpath='{.spec.endpoints[0].port} {.spec.endpoints[0].honorLabels} {.metadata.labels.release}')" = "https true kps" ] \
    || fail "the stored ServiceMonitor differs: $(k -n observability get servicemonitor/mbmon-mongobench -o yaml)"
  [ "$(k -n monitoring get configmap/mbmon-mongobench-dashboard -o jsonpath='{.metadata.labels.grafana_dashboard} {.metadata.annotations.grafana_folder}')" = "1 Benchmarks" ] \
    || fail "the dashboard ConfigMap's label or annotation differs"
  diff <(k -n monitoring get configmap/mbmon-mongobench-dashboard -o jsonpath='{.data.mongobench\.json}') <(printf '%s' "$(cat "$chart/dashboards/mongobench.json")") >/dev/null \
    || fail "the dashboard ConfigMap does not hold charts/mongobench/dashboards/mongobench.json as it is"
  "$helm" get notes mbmon -n observability >"$work/notes.txt"
  grep -q "PodMonitor observability/mbmon-mongobench-loaders" "$work/notes.txt" || fail "the NOTES do not name the PodMonitor: $(cat "$work/notes.txt")"
  grep -q "labelled grafana_dashboard=1" <(tr '\n' ' ' <"$work/notes.txt") || fail "the NOTES do not name the dashboard's label: $(cat "$work/notes.txt")"
  "$helm" uninstall mbmon -n observability >/dev/null
  if k -n monitoring get configmap/mbmon-mongobench-dashboard >/dev/null 2>&1; then fail "uninstall left the dashboard ConfigMap in its namespace"; fi
fi

step "every documented option passes server-side validation (dry run)"
# With the prometheus-operator CRDs installed the monitors are validated
# too; without them they cannot be applied at all.
monitors=()
[ -n "$po_crds" ] || monitors=(--set metrics.serviceMonitor.enabled=false --set metrics.podMonitor.enabled=false)
k get namespace monitoring >/dev/null 2>&1 || k create namespace monitoring >/dev/null
tmpl mball "$chart" -n mongobench-system -f "$chart/ci/all-options-values.yaml" "${monitors[@]}" --skip-crds \
  | k apply --dry-run=server --validate=strict -f - >/dev/null

step "helm upgrade and uninstall"
"$helm" upgrade mb "$chart" -n mongobench-system --set controller.maxConcurrentReconciles=8 --wait=false >/dev/null
k -n mongobench-system get deployment/mb-mongobench -o jsonpath='{.spec.template.spec.containers[0].args}' | grep -q -- "--max-concurrent-reconciles=8" || fail "upgrade did not change the manager's flags"
"$helm" uninstall mbns -n benchmarks >/dev/null
k get crd benchmarkruns.bench.mongobench.io >/dev/null || fail "uninstall removed the CRD (it must keep users' runs)"

step "kustomize install (server-side dry run)"
"$kustomize" build config/default | k apply --server-side --dry-run=server -f - >/dev/null

if [ -n "$po_crds" ]; then
  echo "chart OK"
else
  echo "chart OK, but WITHOUT the PodMonitor and ServiceMonitor validated against the prometheus-operator CRDs (see the warning above)" >&2
fi
