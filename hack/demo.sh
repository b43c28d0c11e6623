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

echo ">> BenchmarkRuns demo-standalone and demo-sharded (mongo:8.0.4, 10,000 records, workload A)"
"$kubectl" create namespace mongobench-demo --dry-run=client -o yaml | "$kubectl" apply -f - >/dev/null
"$kubectl" -n mongobench-demo delete benchmarkrun demo-standalone demo-sharded --ignore-not-found --wait
"$kubectl" -n mongobench-demo apply -f config/samples/bench_v1alpha1_benchmarkrun_demo.yaml

# Wait for both to end: Complete (success) or Failed, whichever comes first.
deadline=$(( $(date +%s) + 1500 ))
for run in demo-standalone demo-sharded; do
  while :; do
    phase=$("$kubectl" -n mongobench-demo get benchmarkrun "$run" -o jsonpath='{.status.phase}')
    case "$phase" in
      Succeeded) break ;;
      Failed)
        echo "error: $run failed: $("$kubectl" -n mongobench-demo get benchmarkrun "$run" -o jsonpath='{.status.conditions[?(@.type=="Failed")].message}')" >&2
        "$kubectl" -n mongobench-demo describe benchmarkrun "$run" >&2
        exit 1 ;;
    esac
    [ "$(date +%s)" -lt "$deadline" ] || { echo "error: $run did not finish in 25 minutes (phase $phase)" >&2; "$kubectl" -n mongobench-demo describe benchmarkrun "$run" >&2; exit 1; }
    sleep 5
  done
done
"$kubectl" -n mongobench-demo wait --for=condition=Complete benchmarkrun/demo-standalone benchmarkrun/demo-sharded --timeout=60s

echo
"$kubectl" -n mongobench-demo get benchmarkruns
echo
printf '%-16s %-6s %-5s %12s %10s %10s %8s\n' RUN PHASE TYPE OPS/S P99-MICROS OPS ERRORS
for run in demo-standalone demo-sharded; do
  "$kubectl" -n mongobench-demo get benchmarkrun "$run" -o jsonpath='{range .status.results[*]}{.name}{" "}{.type}{" "}{.throughput}{" "}{.p99Micros}{" "}{.operations}{" "}{range .operationStats[*]}{.errors}{"+"}{end}{"\n"}{end}' |
    while read -r name type tp p99 ops errs; do
      printf '%-16s %-6s %-5s %12s %10s %10s %8s\n' "$run" "$name" "$type" "$tp" "$p99" "$ops" "$(( ${errs%+} ))"
    done
done
echo
echo "Chunks per shard of demo-sharded: $("$kubectl" -n mongobench-demo get benchmarkrun demo-sharded -o jsonpath='{range .status.topology.chunks[*]}{.shard}={.chunks} {end}')"
echo "KUBECONFIG=$KUBECONFIG; remove everything with: make demo-clean"
