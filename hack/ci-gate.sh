#!/usr/bin/env bash
# ci-gate.sh: mongobench's regression gate with any kubeconfig, for CI.
#
#   hack/ci-gate.sh RUN.yaml [-n NAMESPACE] [--timeout 2h] [--report-dir DIR]
#
# Creates the BenchmarkRun or BenchmarkSweep of RUN.yaml (give it
# metadata.generateName, so every pipeline run is a new object and the old
# ones stay as history; its spec.compare says what it is compared with),
# waits for it with `kubectl mongobench wait`, writes its HTML and Markdown
# reports to DIR (default ./mongobench-report) whatever the outcome, and
# exits with wait's code: 0 succeeded and no regression, 1 failed, 2 no
# verdict (timeout, API server unreachable), 3 succeeded but Regressed,
# 4 succeeded but not valid (a run's Valid condition is False, or a
# sweep's cell has no valid run); 1 wins over 3, 3 over 4.
# Needs kubectl and kubectl-mongobench on PATH.
set -euo pipefail

usage() { sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
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

# create, not apply: generateName gives each pipeline run its own object.
created=$(kubectl create "${namespace[@]}" -f "$manifest" -o name) || exit 2
if [ "$(printf '%s\n' "$created" | wc -l)" -ne 1 ]; then
  echo "ci-gate: $manifest created several objects ($(echo $created)); give it one BenchmarkRun or BenchmarkSweep" >&2
  exit 2
fi
case ${created%%/*} in
  benchmarkrun.*) ref=run/${created#*/} ;;
  benchmarksweep.*) ref=sweep/${created#*/} ;;
  *) echo "ci-gate: $manifest created $created, not a BenchmarkRun or BenchmarkSweep" >&2; exit 2 ;;
esac
echo "ci-gate: created $ref"

code=0
kubectl mongobench "${namespace[@]}" wait "$ref" --timeout="$timeout" || code=$?

mkdir -p "$dir"
kubectl mongobench "${namespace[@]}" report "$ref" -o html --out "$dir" || echo "ci-gate: no HTML report" >&2
kubectl mongobench "${namespace[@]}" report "$ref" -o md --out "$dir" || echo "ci-gate: no Markdown report" >&2
case $code in
  0) echo "ci-gate: $ref succeeded, no regression" ;;
  1) echo "ci-gate: $ref failed" ;;
  3) echo "ci-gate: $ref succeeded but regressed" ;;
  4) echo "ci-gate: $ref succeeded but is not valid: its numbers are not to be trusted" ;;
  *) echo "ci-gate: no verdict for $ref (exit $code)" ;;
esac
exit "$code"
