#!/usr/bin/env bash
# make demo: a kind cluster with mongobench installed by Helm, a small
# BenchmarkSweep against real MongoDB, and its report.
#   make demo         create (or reuse) the cluster, build, install, run, print
#   make demo-clean   delete the cluster
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
cluster=${KIND_CLUSTER:-mongobench-demo}
bin=$root/bin

if [ "${1:-}" = clean ]; then
  hack/require-docker.sh "make demo-clean"
  "$bin/kind" delete cluster --name "$cluster"
  exit 0
fi

export KUBECONFIG=${KUBECONFIG_DEMO:-$root/bin/kubeconfig-$cluster}
hack/kind-up.sh "$cluster" "make demo"
kubectl=$bin/kubectl

echo ">> BenchmarkSweep demo-sweep: standalone vs 2 micro-shards, 2 repetitions each (mongo:8.0.16, 10,000 records, workload A)"
"$kubectl" create namespace mongobench-demo --dry-run=client -o yaml | "$kubectl" apply -f - >/dev/null
"$kubectl" -n mongobench-demo delete benchmarksweep demo-sweep --ignore-not-found --wait
"$kubectl" -n mongobench-demo apply -f config/samples/bench_v1alpha1_benchmarksweep_demo-sweep.yaml

# The kubectl plugin waits (exit 1 with the reason when the sweep fails)
# and renders the report; kubectl finds it on PATH as "kubectl mongobench".
CGO_ENABLED=0 go build -trimpath -o "$bin/kubectl-mongobench" ./cmd/kubectl-mongobench
export PATH="$bin:$PATH"
# Placement is exclusive: the sweep runs one child at a time (parallelism
# 1), each on a node of its own.
if ! "$kubectl" mongobench -n mongobench-demo wait sweep/demo-sweep --timeout=40m; then
  "$kubectl" -n mongobench-demo describe benchmarksweep demo-sweep >&2
  "$kubectl" -n mongobench-demo get benchmarkruns -l bench.mongobench.io/sweep=demo-sweep >&2
  # cleanup: RetainOnFailure keeps a failed run's pods; its diagnostics
  # ConfigMap keeps the failed containers' last log lines in any case.
  for run in $("$kubectl" -n mongobench-demo get benchmarkruns -l bench.mongobench.io/sweep=demo-sweep \
      -o jsonpath='{range .items[?(@.status.phase=="Failed")]}{.metadata.name}{" "}{end}'); do
    "$kubectl" -n mongobench-demo get configmap "$run-diagnostics" -o jsonpath='{.data}' >&2 || true
  done
  exit 1
fi

echo
"$kubectl" -n mongobench-demo get benchmarksweeps
"$kubectl" -n mongobench-demo get benchmarkruns -l bench.mongobench.io/sweep=demo-sweep
echo
echo ">> kubectl mongobench report sweep/demo-sweep"
"$kubectl" mongobench -n mongobench-demo report sweep/demo-sweep
mkdir -p "$bin/demo-report"
"$kubectl" mongobench -n mongobench-demo report sweep/demo-sweep -o html --out "$bin/demo-report"
echo
echo ">> YCSB's own report of demo-sweep-1-r1's phase a (2 shards, repetition 1)"
"$kubectl" mongobench -n mongobench-demo results run/demo-sweep-1-r1 -o ycsb --phase a
echo
echo "KUBECONFIG=$KUBECONFIG; remove everything with: make demo-clean"
