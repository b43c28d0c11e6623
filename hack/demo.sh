#!/usr/bin/env bash
# make demo: a kind cluster with mongobench installed by Helm, two small
# BenchmarkRuns against real MongoDB, and their results.
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

echo ">> BenchmarkRuns demo-standalone and demo-sharded (mongo:8.0.16, 10,000 records, workload A)"
"$kubectl" create namespace mongobench-demo --dry-run=client -o yaml | "$kubectl" apply -f - >/dev/null
"$kubectl" -n mongobench-demo delete benchmarkrun demo-standalone demo-sharded --ignore-not-found --wait
"$kubectl" -n mongobench-demo apply -f config/samples/bench_v1alpha1_benchmarkrun_demo.yaml

# The kubectl plugin waits (exit 1 with the reason when a run fails) and
# prints the results; kubectl finds it on PATH as "kubectl mongobench".
CGO_ENABLED=0 go build -trimpath -o "$bin/kubectl-mongobench" ./cmd/kubectl-mongobench
export PATH="$bin:$PATH"
# Placement is exclusive: a run waits (Pending, WaitingForNode) while the
# other one's database pods or loaders occupy the free workers.
for run in demo-standalone demo-sharded; do
  if ! "$kubectl" mongobench -n mongobench-demo wait "run/$run" --timeout=25m; then
    "$kubectl" -n mongobench-demo describe benchmarkrun "$run" >&2
    # cleanup: RetainOnFailure keeps the pods; the diagnostics ConfigMap
    # keeps the failed containers' last log lines in any case.
    "$kubectl" -n mongobench-demo get configmap "$run-diagnostics" -o jsonpath='{.data}' >&2 || true
    exit 1
  fi
done

echo
"$kubectl" -n mongobench-demo get benchmarkruns
for run in demo-standalone demo-sharded; do
  echo
  echo ">> kubectl mongobench results run/$run"
  "$kubectl" mongobench -n mongobench-demo results "run/$run"
done
echo
echo ">> YCSB's own report of demo-sharded's phase a (kubectl mongobench results run/demo-sharded -o ycsb)"
"$kubectl" mongobench -n mongobench-demo results run/demo-sharded -o ycsb --phase a
echo
echo "Chunks per shard of demo-sharded: $("$kubectl" -n mongobench-demo get benchmarkrun demo-sharded -o jsonpath='{range .status.topology.chunks[*]}{.shard}={.chunks} {end}')"
echo "KUBECONFIG=$KUBECONFIG; remove everything with: make demo-clean"
