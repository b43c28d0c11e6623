#!/usr/bin/env bash
# Client CPU per operation of the loader on every CoreWorkload (load, a-f),
# against the floor (the bare driver loop) and go-ycsb v1.0.1; the cost of
# each loader feature (intended latency, warm-up, telemetry, live metrics); and the
# loader's memory after 100k vs 1M operations. Everything runs against
# internal/testutil/stubmongo, a wire-protocol server that answers at almost
# no cost, in a child process on its own CPU, so that the client's rusage is
# the client's alone. Run it on a quiet machine. The table's first line
# names the host (CPU, caches, kernel, Go): the ratios depend on it.
#
#   hack/perf-loader.sh              # ~20 min on 2 cores
#   ROUNDS=3 OPS=50000 GOYCSB=0 MEM_OPS= hack/perf-loader.sh   # ~6 min
#
# Environment:
#   ROUNDS      measurement rounds (default 5; 0: memory runs only). Each
#               measurement is a process of its own (the stub server, a
#               warm-up, then OPS operations); a round measures every
#               workload's floor, loader and go-ycsb back to back, in an
#               order that alternates between rounds. The table shows
#               medians over rounds; a ratio is the median of per-round
#               ratios, with their range.
#   OPS         operations per measurement (default 100000)
#   WORKLOADS   default "load a b c d e f"
#   GOYCSB      0: leave go-ycsb out (default 1)
#   GC          "default" (default): each process's GC as shipped, the
#               loader binary's GOGC=400 (internal/loader/gc.go) for the
#               loader and the floor alike, Go's default for go-ycsb;
#               "limit": GOGC=off GOMEMLIMIT=256MiB for all (each collects
#               when its heap reaches 256 MiB), the difference is the work
#               done; "default limit": both
#   MEM_OPS     operation counts of the memory runs (default "100000 1000000"; empty: none)
#   MEM_SECONDS durations of further memory runs, e.g. "150 300": past 120 s
#               the time series stops growing (default: none)
#   CLIENT_CPU  CPU the client is pinned to (default 0)
#   SERVER_CPU  CPU of the stub server (default 1)
#
# What is compared (internal/loader/mongodb/perf_test.go, floor_test.go and
# paired_test.go have the details):
#   floor    BenchmarkCPU/<w>/bare: the driver calls of the workload's
#            operations and nothing else: every key, filter, scan length and
#            operation kind decided before the clock starts and held in flat
#            tables the GC does not scan, values made once, no generator, no
#            histogram; the loader's client and GOGC; 8 goroutines
#   loader   BenchmarkCPU/<w>/loader: ycsb.Run + the MongoDB binding in
#            process, 8 threads, the embedded workload
#   go-ycsb  BenchmarkGoYCSB/<w>: github.com/pingcap/go-ycsb v1.0.1 (driver
#            v1) as a child process, 8 threads, same workload; built here in
#            a throw-away module, never a dependency of this module
#   own      BenchmarkOverhead/<w>: the loader without the driver calls
#   paired   BenchmarkPaired/<w>: the loader and the floor in one process,
#            taking turns of 100 ms; each turn's CPU and operations go to
#            the side that ran. The machine's drift (5-10% over minutes on
#            a shared host) cancels within each pair of turns, which is
#            what makes a ratio near 1.05 or a feature's 1% measurable; the
#            loader/floor column is this ratio. a-same pairs the loader with
#            itself: the method's own error. a-own pairs the floor of a
#            doing the loader's own per-operation work too (its key
#            generator, values, filter and update, clock reads, recorder)
#            with the floor: the part of a's ratio that YCSB's semantics
#            require (each ratio ± about 0.01, from different pairs).
#   busy     BenchmarkPaired again, the stub server Busy (it polls its
#            connections instead of sleeping; STUBMONGO_SERVER_BUSY=1): no
#            request pays for waking it, as against a real server that is
#            the benchmark's bottleneck. Against the sleeping server a
#            client slower between calls finds it asleep more often, so
#            client work costs about twice itself (the calibration line);
#            BUSY=0 leaves these out (about 2 of the 20 minutes).
#   features per operation (intended latencies, the warm-up's check):
#            BenchmarkPaired/a-<feature>, the loader with it against the
#            loader without, in turns; and the difference of their own
#            CPU (BenchmarkOverhead). Background work on its own clock
#            (telemetry's sampling, the live metrics' merge and scrape)
#            cannot be paired, as it runs during both sides' turns: its CPU
#            per second (internal/telemetry and internal/loader/metrics
#            benchmarks) is its share of a loader saturating one core.
set -euo pipefail

cd "$(dirname "$0")/.."
export GOTOOLCHAIN=local GOFLAGS=-buildvcs=false
ROUNDS=${ROUNDS:-5}
OPS=${OPS:-100000}
WORKLOADS=${WORKLOADS:-"load a b c d e f"}
FEATURES="intended warmup"
GOYCSB=${GOYCSB:-1}
BUSY=${BUSY:-1}
GC=${GC:-default}
MEM_OPS=${MEM_OPS-"100000 1000000"}
CLIENT_CPU=${CLIENT_CPU:-0}
SERVER_CPU=${SERVER_CPU:-1}
GOYCSB_VERSION=v1.0.1
# go-ycsb v1.0.1's go.mod replaces thrift; a replace is not inherited by a
# requiring module, so the tools module repeats it.
THRIFT=github.com/apache/thrift@v0.0.0-20171203172758-327ebb6c2b6d

out=bin/perf
tools=bin/.tools/go-ycsb
mkdir -p "$out" "$tools"
log() { echo "perf-loader: $*" >&2; }
for tool in taskset /usr/bin/time; do
  command -v "$tool" >/dev/null || { log "$tool is required"; exit 1; }
done

# 1. go-ycsb, outside this module.
goycsb="$tools/go-ycsb-$GOYCSB_VERSION"
if [ "$GOYCSB" = 1 ] && [ ! -x "$goycsb" ]; then
  log "building go-ycsb $GOYCSB_VERSION in $tools (a few minutes the first time)"
  (
    cd "$tools"
    rm -f go.mod go.sum
    printf 'module gotools/go-ycsb\n\ngo 1.26\n' >go.mod
    printf '//go:build tools\n\npackage tools\n\nimport _ "github.com/pingcap/go-ycsb/cmd/go-ycsb"\n' >tools.go
    go mod edit -require=github.com/pingcap/go-ycsb@$GOYCSB_VERSION -replace=github.com/apache/thrift=$THRIFT
    go mod tidy
    CGO_ENABLED=0 go build -o "go-ycsb-$GOYCSB_VERSION" github.com/pingcap/go-ycsb/cmd/go-ycsb
  )
fi
goycsb=$(cd "$(dirname "$goycsb")" && pwd)/$(basename "$goycsb")

# 2. The benchmark binaries and the loader itself.
log "building test binaries and the loader"
go test -c -o "$out/mongodb.test" ./internal/loader/mongodb
go test -c -o "$out/telemetry.test" ./internal/telemetry
go test -c -o "$out/metrics.test" ./internal/loader/metrics
CGO_ENABLED=0 go build -trimpath -o "$out/loader" ./cmd/loader

# The host, for the table's head: the ratios depend on it (how dear a
# wake-up of the other CPU is, how much of a thread's state the caches
# keep between two driver calls; docs/loader.md, "On the host of 27
# November"), so a table says where it was measured.
host_line() {
  local model family cpumodel l2 l3
  # The first CPU's lines; sed quits there (no pipe to break under pipefail).
  model=$(sed -n '/^model name[[:space:]]*:/{s/^[^:]*: *//p;q;}' /proc/cpuinfo 2>/dev/null || true)
  family=$(sed -n '/^cpu family[[:space:]]*:/{s/^[^:]*: *//p;q;}' /proc/cpuinfo 2>/dev/null || true)
  cpumodel=$(sed -n '/^model[[:space:]]*:/{s/^[^:]*: *//p;q;}' /proc/cpuinfo 2>/dev/null || true)
  l2=$(cat /sys/devices/system/cpu/cpu"$CLIENT_CPU"/cache/index2/size 2>/dev/null || true)
  l3=$(cat /sys/devices/system/cpu/cpu"$CLIENT_CPU"/cache/index3/size 2>/dev/null || true)
  printf 'Host: %s (family %s, model %s), %s CPUs, L2 %s, L3 %s; %s; %s; started %s\n' \
    "${model:-unknown CPU}" "${family:-?}" "${cpumodel:-?}" "$(getconf _NPROCESSORS_ONLN)" \
    "${l2:-?}" "${l3:-?}" "$(uname -sr)" "$(go env GOVERSION)" "$(date -u '+%Y-%m-%d %H:%M UTC')"
}
host=$(host_line)

# pinned [VAR=value...] command...: the client on CLIENT_CPU, the stub
# server it starts on SERVER_CPU.
pinned() { env STUBMONGO_SERVER_CPUS="$SERVER_CPU" taskset -c "$CLIENT_CPU" "$@"; }

# 3. CPU rounds: one process per measurement.
cpu="$out/cpu.txt"
: >"$cpu"
# measure ROUND GC BENCH-PATTERN [busy]: one benchmark in a process of its
# own; busy: against a Busy stub server, its lines named BenchmarkBusy*.
measure() {
  local round=$1 gc=$2 pattern=$3 busy=${4:-} gcenv=() name=Benchmark
  [ "$gc" = limit ] && gcenv=(GOGC=off GOMEMLIMIT=256MiB)
  [ -n "$busy" ] && name=BenchmarkBusy
  env -u GOGC -u GOMEMLIMIT "${gcenv[@]}" GOYCSB_BIN="$goycsb" STUBMONGO_SERVER_CPUS="$SERVER_CPU" \
    STUBMONGO_SERVER_BUSY="${busy:+1}" \
    taskset -c "$CLIENT_CPU" "$out/mongodb.test" -test.run '^$' -test.bench "$pattern" -test.benchtime "${OPS}x" |
    sed -n "s/^Benchmark/gc=$gc round=$round $name/p" >>"$cpu"
}
for round in $(seq 1 "$ROUNDS"); do
  for gc in $GC; do
    log "round $round/$ROUNDS, GC $gc"
    for w in $WORKLOADS; do
      variants="bare loader"
      [ $((round % 2)) = 0 ] && variants="loader bare"
      for v in $variants; do
        measure "$round" "$gc" "^BenchmarkCPU\$/^$w\$/^$v\$"
      done
      [ "$GOYCSB" = 1 ] && measure "$round" "$gc" "^BenchmarkGoYCSB\$/^$w\$"
      measure "$round" "$gc" "^BenchmarkOverhead\$/^$w\$"
    done
    # The features' own CPU, beside workload a's.
    for f in $FEATURES; do
      measure "$round" "$gc" "^BenchmarkOverhead\$/^a-$f\$"
    done
    # Every pair (loader and floor of each workload, the features, a-same,
    # the calibration c-spin1us and a-own) in one process.
    pairs=$(printf '%s|' $WORKLOADS $(printf 'a-%s ' $FEATURES) a-same c-spin1us a-own)
    measure "$round" "$gc" "^BenchmarkPaired\$/^(${pairs%|})\$"
    if [ "$BUSY" = 1 ]; then
      busypairs=$(printf '%s|' $WORKLOADS a-same c-spin1us a-own)
      measure "$round" "$gc" "^BenchmarkPaired\$/^(${busypairs%|})\$" busy
    fi
  done
done

# Background features: CPU per second of telemetry (four processes sampled
# once a second: the serverStatus call to the stub, plus reading a reply
# of a real one's size) and of the live metrics (one merge of a second's
# histograms, one scrape every second: 15 times Prometheus' default).
bg="$out/background.txt"
: >"$bg"
if [ "$ROUNDS" -gt 0 ]; then
  log "background features"
  # Each in its package's directory, for its testdata.
  (cd internal/telemetry && env STUBMONGO_SERVER_CPUS="$SERVER_CPU" taskset -c "$CLIENT_CPU" "../../$out/telemetry.test" \
    -test.run '^$' -test.bench '^Benchmark(ServerStatusCall|SampleRound)$' -test.benchtime 20000x) | grep '^Benchmark' >>"$bg"
  (cd internal/loader/metrics && taskset -c "$CLIENT_CPU" "../../../$out/metrics.test" -test.run '^$' \
    -test.bench '^Benchmark(Observe|Scrape)$' -test.benchtime 2000x) | grep '^Benchmark' >>"$bg"
fi

# 4. Memory: the loader binary against a stub server: its peak RSS, its
# largest live heap after any GC cycle (gctrace), the run's length and the
# points of its time series (capped at 120), after MEM_OPS operations, and
# for MEM_SECONDS seconds (unlimited operations, maxexecutiontime), both as
# shipped (GOGC=400) and at Go's default GOGC=100; go-ycsb for comparison.
mem="$out/memory.txt"
: >"$mem"
if [ -n "$MEM_OPS${MEM_SECONDS:-}" ]; then
log "memory runs: $MEM_OPS operations${MEM_SECONDS:+; $MEM_SECONDS seconds}"
exec 9> >(MONGOBENCH_STUBMONGO_CHILD=1 taskset -c "$SERVER_CPU" "$out/mongodb.test" -test.run '^$' >"$out/stub.out" 2>&1)
addr=
for _ in $(seq 1 100); do
  addr=$(sed -n 's/^LISTENING //p' "$out/stub.out")
  [ -n "$addr" ] && break
  sleep 0.1
done
[ -n "$addr" ] || { log "stub server did not start: $(cat "$out/stub.out")"; exit 1; }
url="mongodb.url=mongodb://$addr/?directConnection=true"
# memrun NAME SIZE GOGC LOADER-ARGS...: one loader run, one line of $mem.
memrun() {
  local name=$1 size=$2 gogc=$3
  shift 3
  local tag="$name-$size"
  env -u GOMEMLIMIT ${gogc:+GOGC=$gogc} GODEBUG=gctrace=1 /usr/bin/time -f '%M %e' -o "$out/time-$tag" \
    taskset -c "$CLIENT_CPU" "$out/loader" run -P workloada -p "$url" -p recordcount=1000000 -threads 8 \
    --result "$out/result-$tag.json.gz" "$@" >"$out/report-$tag.txt" 2>"$out/stderr-$tag.txt"
  local live points ops
  live=$(grep -o '[0-9]*->[0-9]*->[0-9]* MB' "$out/stderr-$tag.txt" | sed 's/.*->\([0-9]*\) MB/\1/' | sort -n | tail -1)
  points=$(gzip -dc "$out/result-$tag.json.gz" | grep -o '"millis":' | wc -l)
  ops=$(sed -n 's/^\[READ\], Operations, //p; s/^\[UPDATE\], Operations, //p' "$out/report-$tag.txt" | awk '{s += $1} END {print s}')
  echo "$name $ops $(cat "$out/time-$tag") ${live:-?} $(grep -c '^gc ' "$out/stderr-$tag.txt") $points" >>"$mem"
}
for n in $MEM_OPS; do
  memrun loader "$n" "" -p operationcount="$n"
  memrun loader-gogc100 "$n" 100 -p operationcount="$n"
  [ "$GOYCSB" = 1 ] || continue
  /usr/bin/time -f '%M %e' -o "$out/time-goycsb-$n" taskset -c "$CLIENT_CPU" "$goycsb" run mongodb -p workload=core \
    -p readproportion=0.5 -p updateproportion=0.5 -p requestdistribution=zipfian -p "$url" \
    -p recordcount=1000000 -p operationcount="$n" -p threadcount=8 >"$out/goycsb-$n.txt" 2>&1
  echo "go-ycsb $n $(cat "$out/time-goycsb-$n") - - -" >>"$mem"
done
for secs in ${MEM_SECONDS:-}; do
  memrun loader "${secs}s" "" -p operationcount=0 -p maxexecutiontime="$secs"
done
exec 9>&- # EOF on the stub's stdin: it exits
fi

# 5. The table.
awk -v host="$host" -v rounds="$ROUNDS" -v ops="$OPS" -v workloads="$WORKLOADS" -v features="$FEATURES" -v gcs="$GC" '
function median(list,   n, a, i, j, t) {
  n = split(list, a, " ")
  for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
  if (n == 0) return "-"
  return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function range(list, fmt,   n, a, i, lo, hi) {
  n = split(list, a, " ")
  if (n == 0) return "-"
  lo = hi = a[1]
  for (i = 2; i <= n; i++) { if (a[i] + 0 < lo + 0) lo = a[i]; if (a[i] + 0 > hi + 0) hi = a[i] }
  return sprintf(fmt "-" fmt, lo, hi)
}
# ratios A B: the per-round ratios of benchmark A over benchmark B.
function ratios(x, y,   r, out) {
  out = ""
  for (r = 1; r <= rounds; r++) if ((x SUBSEP r) in at && (y SUBSEP r) in at && at[y SUBSEP r] > 0) out = out " " at[x SUBSEP r] / at[y SUBSEP r]
  return out
}
# se(list): the standard error of the rounds'"'"' mean from their spread, or
# from the rounds'"'"' own standard errors when that is larger (few rounds).
function se(list, ses,   n, a, i, m, ss, own, k, b) {
  n = split(list, a, " ")
  if (n == 0) return "-"
  for (i = 1; i <= n; i++) m += a[i]
  m /= n
  for (i = 1; i <= n; i++) ss += (a[i] - m) ^ 2
  k = split(ses, b, " ")
  for (i = 1; i <= k; i++) own += b[i] ^ 2
  own = k ? sqrt(own / k) / sqrt(k) : 0
  return n > 1 && sqrt(ss / (n - 1) / n) > own ? sqrt(ss / (n - 1) / n) : own
}
function num(x) { return x == "-" ? "-" : sprintf("%.2f", x) }
function busy(q) { return (q in pr) ? ratio(median(pr[q])) : "-" }
function busyse(q) { return (q in pr) ? sprintf("%.3f", se(pr[q], pse[q])) : "-" }
function busycpu(q) { return (q in pr) ? num(median(pbase[q])) ", " num(median(v[q])) : "-" }
function ratio(x) { return x == "-" ? "-" : sprintf("%.3f", x) }
FILENAME ~ /cpu.txt$/ {
  split($1, g, "="); split($2, rr, "="); gc = g[2]; round = rr[2]
  name = $3; sub(/-[0-9]+$/, "", name)
  key = gc SUBSEP name
  cpu = ""; allocs = ""
  for (i = 4; i <= NF; i++) {
    if ($i == "cpu-us/op") cpu = $(i-1)
    if ($i == "allocs/op") allocs = $(i-1)
    if ($i == "ratio") { pr[key] = pr[key] " " $(i-1) }
    if ($i == "ratio-se") { pse[key] = pse[key] " " $(i-1) }
    if ($i == "base-cpu-us/op") { pbase[key] = pbase[key] " " $(i-1) }
    if ($i == "srv-sleeps/op") { psl[key] = psl[key] " " $(i-1) }
    if ($i == "base-srv-sleeps/op") { pbsl[key] = pbsl[key] " " $(i-1) }
  }
  v[key] = v[key] " " cpu; al[key] = allocs
  at[key SUBSEP round] = cpu
  next
}
FILENAME ~ /background.txt$/ {
  name = $1; sub(/-[0-9]+$/, "", name)
  for (i = 2; i <= NF; i++) {
    if ($i == "ns/op") bgns[name] = $(i-1)
    if ($i == "cpu-us/sample") bgus[name] = $(i-1)
  }
  next
}
{ mem[++m] = $0 }
END {
  printf "%s\n\n", host
  if (rounds > 0) cpu_table()
  memory_table()
}
function cpu_table(   gi, ng, gl, gc, w, nw, wl, b, l, y, o, p, q, pa, pab, yr, nf, fl, f, base, own, tel, met) {
  printf "Client CPU per operation (µs), median of %d rounds of %d operations; 8 threads; client pinned to one CPU, stub server on another\n\n", rounds, ops
  ng = split(gcs, gl, " "); nw = split(workloads, wl, " "); nf = split(features, fl, " ")
  for (gi = 1; gi <= ng; gi++) {
    gc = gl[gi]
    printf "GC %s\n", gc
    printf "| %-8s | %7s | %7s | %12s | %6s | %11s | %13s | %13s | %10s | %6s | %13s | %7s | %13s | %15s | %s |\n", "workload", "floor", "loader", "loader/floor", "± se", "range", "paired f, l", "server sleeps", "busy: l/f", "± se", "busy f, l", "go-ycsb", "go-ycsb/floor", "own µs (allocs)", "allocs/op floor, loader"
    printf "|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|\n", "---", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:"
    for (w = 1; w <= nw; w++) {
      b = gc SUBSEP "BenchmarkCPU/" wl[w] "/bare"; l = gc SUBSEP "BenchmarkCPU/" wl[w] "/loader"
      y = gc SUBSEP "BenchmarkGoYCSB/" wl[w]; o = gc SUBSEP "BenchmarkOverhead/" wl[w]; p = gc SUBSEP "BenchmarkPaired/" wl[w]
      yr = ratios(y, b); q = gc SUBSEP "BenchmarkBusyPaired/" wl[w]
      printf "| %-8s | %7s | %7s | %12s | %6.3f | %11s | %13s | %13s | %10s | %6s | %13s | %7s | %13s | %9s (%s) | %s, %s |\n", wl[w], num(median(v[b])), num(median(v[l])),
        ratio(median(pr[p])), se(pr[p], pse[p]), range(pr[p], "%.3f"), num(median(pbase[p])) ", " num(median(v[p])),
        num(median(pbsl[p])) ", " num(median(psl[p])), busy(q), busyse(q), busycpu(q),
        num(median(v[y])), ratio(median(yr)), num(median(v[o])), al[o], al[b], al[l]
    }
    p = gc SUBSEP "BenchmarkPaired/a-same"; q = gc SUBSEP "BenchmarkBusyPaired/a-same"
    if (p in pr)
      printf "| %-8s | %7s | %7s | %12s | %6.3f | %11s | %13s | %13s | %10s | %6s | %13s | %7s | %13s | %15s | %s |\n", "a-same", "-", "-", ratio(median(pr[p])), se(pr[p], pse[p]), range(pr[p], "%.3f"),
        num(median(pbase[p])) ", " num(median(v[p])), num(median(pbsl[p])) ", " num(median(psl[p])), busy(q), busyse(q), busycpu(q), "-", "-", "-", "-"
    printf "\nloader/floor: BenchmarkPaired, the loader and the floor in one process taking turns (median of the rounds; ± the standard error of their mean;\n"
    printf "range over rounds). floor and loader: each alone in a process of its own, on a machine whose speed drifts between them. a-same: the loader\n"
    printf "paired with itself, the method'"'"'s own error. paired f, l: CPU per operation of each side in the pairs (floor, loader).\n"
    printf "server sleeps: per operation, how often the stub server'"'"'s threads blocked during that side'"'"'s turns (f, l): each is a wake-up a request paid for.\n"
    p = gc SUBSEP "BenchmarkPaired/c-spin1us"
    if (p in pr)
      printf "Calibration: the floor of c spinning 1 µs before each call costs %+.2f µs per operation more than the floor (ratio %.3f; server\n" \
        "sleeps per operation %.3f against %.3f): client work costs more than itself here, as a client slower between calls finds the server\n" \
        "asleep more often and pays for waking it.\n",
        median(v[p]) - median(pbase[p]), median(pr[p]), median(psl[p]), median(pbsl[p])
    q = gc SUBSEP "BenchmarkBusyPaired/c-spin1us"
    if (q in pr) {
      printf "busy: the same pairs against a Busy stub server, which polls instead of sleeping (server sleeps per operation %.3f, %.3f):\n", median(pbsl[q]), median(psl[q])
      printf "no request wakes it, as against a real server that is the bottleneck; there 1 µs of spin costs %+.2f µs per operation (ratio %.3f).\n",
        median(v[q]) - median(pbase[q]), median(pr[q])
    }
    p = gc SUBSEP "BenchmarkPaired/a-own"; q = gc SUBSEP "BenchmarkBusyPaired/a-own"
    pa = gc SUBSEP "BenchmarkPaired/a"; pab = gc SUBSEP "BenchmarkBusyPaired/a"
    if ((p in pr) && (pa in pr))
      printf "Own work: the floor of a doing the loader'"'"'s own per-operation work too (the key generator, the values, filter and update, two clock\n" \
        "reads and a recorder: BenchmarkPaired/a-own) against the floor: %.3f%s. a'"'"'s loader/floor is %.3f%s. What lies above\n" \
        "the own work is the engine and the binding around it (each ratio ± about 0.01, from different pairs).\n",
        median(pr[p]), ((q in pr) ? sprintf(" (busy %.3f)", median(pr[q])) : ""),
        median(pr[pa]), ((pab in pr) ? sprintf(" (busy %.3f)", median(pr[pab])) : "")
    base = gc SUBSEP "BenchmarkCPU/a/loader"
    if (!(base in v)) { printf "\n"; continue }
    printf "\nFeatures on, workload a: loader CPU per operation with the feature against without\n"
    printf "| %-10s | %-46s | %9s | %6s | %13s | %25s |\n", "feature", "measured as", "cost", "± se", "range", "own CPU difference"
    printf "|%s|%s|%s|%s|%s|%s|\n", "---", "---", "---:", "---:", "---:", "---:"
    for (f = 1; f <= nf; f++) {
      p = gc SUBSEP "BenchmarkPaired/a-" fl[f]
      own = (median(v[gc SUBSEP "BenchmarkOverhead/a-" fl[f]]) - median(v[gc SUBSEP "BenchmarkOverhead/a"])) / median(v[base]) * 100
      printf "| %-10s | %-46s | %+8.2f%% | %5.2f%% | %13s | %+8.3f µs/op = %+6.2f%% |\n", fl[f], "paired with the loader without it, per op",
        (median(pr[p]) - 1) * 100, se(pr[p], pse[p]) * 100, range(pr[p], "%.3f"),
        median(v[gc SUBSEP "BenchmarkOverhead/a-" fl[f]]) - median(v[gc SUBSEP "BenchmarkOverhead/a"]), own
    }
    # Background work: CPU per second over the CPU of a loader saturating
    # one core (1e6 µs per second).
    if ("BenchmarkServerStatusCall" in bgus) {
      tel = 4 * (bgus["BenchmarkServerStatusCall"] + bgus["BenchmarkSampleRound"])
      printf "| %-10s | %-46s | %+8.2f%% | %6s | %13s | %25s |\n", "telemetry", sprintf("4 processes sampled each second: %.0f µs/s", tel), tel / 1e4, "-", "-", "-"
    }
    if ("BenchmarkObserve" in bgns) {
      met = (bgns["BenchmarkObserve"] + bgns["BenchmarkScrape"]) / 1e3
      printf "| %-10s | %-46s | %+8.2f%% | %6s | %13s | %25s |\n", "metrics", sprintf("a merge and a scrape each second: %.0f µs/s", met), met / 1e4, "-", "-", "-"
    }
    printf "\nintended, warmup: BenchmarkPaired/a-<feature>; own CPU difference: BenchmarkOverhead/a-<feature> - BenchmarkOverhead/a, over the loader'"'"'s CPU\n"
    printf "per operation. telemetry, metrics: they run on their own clock, during both sides'"'"' turns, so a pair cannot see them; their CPU per\n"
    printf "second (telemetry: BenchmarkServerStatusCall + BenchmarkSampleRound of a 55 KB reply; metrics: BenchmarkObserve + BenchmarkScrape)\n"
    printf "over a loader saturating one core, 1e6 µs of CPU per second (this setup: the client core is saturated).\n\n"
  }
  printf "GC: default = as shipped (floor and loader GOGC=400, go-ycsb GOGC=100); limit = GOGC=off GOMEMLIMIT=256MiB for all.\n\n"
}
function memory_table(   i, f) {
  if (m == 0) return
  printf "Memory, workload a, 8 threads: peak RSS, largest live heap after a GC, GC cycles, run time, time-series points (cap 120):\n"
  for (i = 1; i <= m; i++) {
    split(mem[i], f, " ")
    printf "  %-14s %9d ops  %6.1f s  peak RSS %6.1f MiB  live heap %3s MB  GCs %4s  series points %3s\n",
      f[1], f[2], f[4], f[3] / 1024, f[5], f[6], f[7]
  }
}' "$cpu" "$bg" "$mem" | tee "$out/table.txt"
log "raw numbers in $cpu and $mem; the table in $out/table.txt"
