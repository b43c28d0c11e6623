#!/usr/bin/env bash
# ci-gate.sh: mongobench's regression gate with any kubeconfig, for CI.
#
#   hack/ci-gate.sh RUN.yaml [-n NAMESPACE] [--timeout 2h] [--report-dir DIR]
#
# Creates the BenchmarkRun of RUN.yaml (give it metadata.generateName, so
# every pipeline run is a new run and the old ones stay as history; its
# spec.compare says what it is compared with), waits for it with
# `kubectl mongobench wait`, writes its HTML and Markdown reports to DIR
# (default ./mongobench-report) whatever the outcome, and exits with wait's
# code: 0 succeeded and no regression, 1 the run failed, 2 no verdict
# (timeout, API server unreachable), 3 succeeded but Regressed.
# Needs kubectl and kubectl-mongobench on PATH.
set -euo pipefail

usage() { sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
[ $# -ge 1 ] || usage
manifest=$1
shift
namespace=() timeout=2h dir=./mongobench-report
while [ $# -gt 0 ]; do
  case $1 in
    -n|--namespace) namespace=(-n "$2"); shift 2 ;;
    --timeout) timeout=$2; shift 2 ;;
    --report-dir) dir=$2; shift 2 ;;
    *) usage ;;
  esac
done
[ -r "$manifest" ] || { echo "ci-gate: cannot read $manifest" >&2; exit 2; }

# create, not apply: generateName gives each pipeline run its own run.
ref=$(kubectl create "${namespace[@]}" -f "$manifest" -o name) || exit 2
name=${ref#*/}
echo "ci-gate: created run/$name"

code=0
kubectl mongobench "${namespace[@]}" wait "run/$name" --timeout="$timeout" || code=$?

mkdir -p "$dir"
kubectl mongobench "${namespace[@]}" report "run/$name" -o html --out "$dir" || echo "ci-gate: no HTML report" >&2
kubectl mongobench "${namespace[@]}" report "run/$name" -o md --out "$dir" || echo "ci-gate: no Markdown report" >&2
case $code in
  0) echo "ci-gate: run/$name succeeded, no regression" ;;
  1) echo "ci-gate: run/$name failed" ;;
  3) echo "ci-gate: run/$name succeeded but regressed" ;;
  *) echo "ci-gate: no verdict for run/$name (exit $code)" ;;
esac
exit "$code"
