package validity

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/topology"
)

// Defaults of spec.validity (its +kubebuilder:default markers say the
// same, for a run the API server has not defaulted).
const (
	DefaultMaxErrorPercent           = 0.1
	DefaultMaxLoaderCPUPercent       = 90.0
	DefaultMaxLoaderThrottledPercent = 5.0
)

// Problem is one reason a run is invalid.
type Problem struct {
	Reason benchv1.Reason
	// Phase names the phase it was found in.
	Phase string
	// Message says what was found, for a person.
	Message string
}

// Check runs every check on a run's results, in a fixed order (phases in
// order; in each: errors, process restarts, primary changes, cache sizes,
// connection limits, loaders), and returns what it found. A check whose
// figures are absent (telemetry off, an old loader) finds nothing; Unchecked
// says which.
func Check(run *benchv1.BenchmarkRun) []Problem {
	var out []Problem
	v := run.Spec.Validity
	maxErr := orDefault(v.MaxErrorPercent, DefaultMaxErrorPercent)
	maxCPU := orDefault(v.MaxLoaderCPUPercent, DefaultMaxLoaderCPUPercent)
	maxThrottled := orDefault(v.MaxLoaderThrottledPercent, DefaultMaxLoaderThrottledPercent)
	wantCache := expectedCacheBytes(run)
	sets := replicaSets(run)
	for i := range run.Status.Results {
		res := &run.Status.Results[i]
		add := func(reason benchv1.Reason, format string, args ...any) {
			out = append(out, Problem{Reason: reason, Phase: res.Name, Message: "phase " + res.Name + ": " + fmt.Sprintf(format, args...)})
		}
		var errs, ops int64
		for _, o := range res.OperationStats {
			if o.Name == "CLEANUP" || o.Name == "VERIFY" || o.Name == "READ-MODIFY-WRITE" {
				// Not calls of the workload (CLEANUP, VERIFY), or calls
				// counted already (READ-MODIFY-WRITE's READ and UPDATE).
				continue
			}
			errs += o.Errors
			ops += o.Count
		}
		// Buffered inserts the final flush lost were counted OK when they
		// were buffered (BATCHED_OK): they failed all the same.
		errs += res.LostInserts
		// The failures a disruption caused are what it measures, not a
		// fault of the run (disruptionErrors says which count).
		planned := min(disruptionErrors(res), errs)
		errs -= planned
		if ops > 0 {
			if pct := float64(errs) * 100 / float64(ops); pct > maxErr {
				add(benchv1.ReasonTooManyErrors, "%s%% of the database calls failed (%d of %d%s), above validity.maxErrorPercent %s%%",
					pctString(pct), errs, ops, plannedErrors(planned), pctString(maxErr))
			}
		}
		for _, srv := range res.Server {
			// A restart of a member a pod deletion deleted is what the
			// disruption measures (ServerSummary.PlannedRestarts).
			if n := srv.Restarts - max(srv.PlannedRestarts, 0); n > 0 {
				add(benchv1.ReasonProcessRestarted, "%s %s restarted %d time(s)%s", srv.Role, srv.Pod, n, restartsBesides(&srv))
			}
		}
		primaryChanges(res.Server, sets, add)
		for _, srv := range res.Server {
			want, ok := wantCache[srv.Role]
			if !ok || srv.CacheMaxBytes == nil {
				continue
			}
			switch {
			case srv.CacheMaxBytesChanged:
				add(benchv1.ReasonCacheSizeMismatch, "%s %s's WiredTiger cache changed size during the phase (up to %s)",
					srv.Role, srv.Pod, mib(*srv.CacheMaxBytes))
			case *srv.CacheMaxBytes != want:
				add(benchv1.ReasonCacheSizeMismatch, "%s %s's WiredTiger cache is %s, the run configured %s",
					srv.Role, srv.Pod, mib(*srv.CacheMaxBytes), mib(want))
			}
		}
		for _, srv := range res.Server {
			if srv.MinConnectionsAvailable != nil && *srv.MinConnectionsAvailable <= 0 {
				add(benchv1.ReasonConnectionLimit, "%s %s ran out of connections (connections.available reached 0)", srv.Role, srv.Pod)
			}
		}
		for _, l := range res.LoaderStats {
			name := "loader " + strconv.Itoa(int(l.Index))
			if l.Pod != "" {
				name += " (" + l.Pod + ")"
			}
			if l.CPUPercent != nil && *l.CPUPercent > maxCPU {
				add(benchv1.ReasonLoaderSaturated, "%s used %s%% of the CPU it may use (%s), above validity.maxLoaderCPUPercent %s%%",
					name, pctString(*l.CPUPercent), l.CPULimit, pctString(maxCPU))
			}
			if l.ThrottledPercent != nil && *l.ThrottledPercent > maxThrottled {
				add(benchv1.ReasonLoaderSaturated, "%s was CPU-throttled in %s%% of its quota's periods, above validity.maxLoaderThrottledPercent %s%%",
					name, pctString(*l.ThrottledPercent), pctString(maxThrottled))
			}
		}
	}
	return out
}

// Unchecked names the checks that had no figures to look at: with
// telemetry off, or a phase without it, the server-side checks.
func Unchecked(run *benchv1.BenchmarkRun) []string {
	var noServer, noLoaders []string
	for _, res := range run.Status.Results {
		if len(res.Server) == 0 {
			noServer = append(noServer, res.Name)
		}
		if len(res.LoaderStats) == 0 {
			noLoaders = append(noLoaders, res.Name)
		}
	}
	var out []string
	if len(noServer) > 0 {
		out = append(out, "restarts, elections, cache size and connection limit (no telemetry in phase "+strings.Join(noServer, ", ")+")")
	}
	if len(noLoaders) > 0 {
		out = append(out, "loader CPU (not reported in phase "+strings.Join(noLoaders, ", ")+")")
	}
	return out
}

// replicaSets maps each process's pod to its replica set, from
// status.topology (empty for runs recorded before it said).
func replicaSets(run *benchv1.BenchmarkRun) map[string]string {
	out := map[string]string{}
	if t := run.Status.Topology; t != nil {
		for _, p := range t.Processes {
			if p.ReplicaSet != "" {
				out[p.Pod] = p.ReplicaSet
			}
		}
	}
	return out
}

// primaryChanges reports the elections of a phase's measured window: one
// problem per replica set of several members whose members saw its
// primary change (every member sees the same election, so one per member
// would count it N times), naming the members that saw it and the most
// changes one of them counted; one per process for a one-member set, or a
// process whose set status does not name.
func primaryChanges(servers []benchv1.ServerSummary, sets map[string]string, add func(benchv1.Reason, string, ...any)) {
	members := map[string]int{}
	for _, srv := range servers {
		if rs := sets[srv.Pod]; rs != "" {
			members[rs]++
		}
	}
	type seen struct {
		pods []string
		most int32
	}
	var order []string
	bySet := map[string]*seen{}
	for _, srv := range servers {
		changes := unplanned(&srv)
		if changes <= 0 {
			continue
		}
		rs := sets[srv.Pod]
		if rs == "" || members[rs] < 2 {
			add(benchv1.ReasonPrimaryChanged, "%s %s saw its replica set's primary change %d time(s)%s", srv.Role, srv.Pod, changes, besides(&srv))
			continue
		}
		if bySet[rs] == nil {
			bySet[rs] = &seen{}
			order = append(order, rs)
		}
		bySet[rs].pods = append(bySet[rs].pods, srv.Pod)
		bySet[rs].most = max(bySet[rs].most, changes)
	}
	for _, rs := range order {
		s := bySet[rs]
		add(benchv1.ReasonPrimaryChanged, "replica set %s changed primary during the measured window (up to %d time(s), seen by %d of its %d members: %s)",
			rs, s.most, len(s.pods), members[rs], strings.Join(s.pods, ", "))
	}
}

// unplanned is how many of a process's primary changes no disruption of
// the phase explains (the controller matched their times against the
// StepDowns': ServerSummary.PlannedPrimaryChanges).
func unplanned(srv *benchv1.ServerSummary) int32 {
	return max(srv.PrimaryChanges-max(srv.PlannedPrimaryChanges, 0), 0)
}

// besides says, for a process that also saw planned changes, that they
// are not the ones counted.
func besides(srv *benchv1.ServerSummary) string {
	if srv.PlannedPrimaryChanges <= 0 {
		return ""
	}
	return fmt.Sprintf(" besides the %d its disruptions caused", srv.PlannedPrimaryChanges)
}

// restartsBesides says, for a process that also restarted as planned,
// that those restarts are not the ones counted.
func restartsBesides(srv *benchv1.ServerSummary) string {
	if srv.PlannedRestarts <= 0 {
		return ""
	}
	return fmt.Sprintf(" besides the %d its pod's deletion by a disruption caused", srv.PlannedRestarts)
}

// Planned lists, per phase and replica set, the changes of primary that
// the phase's disruptions explain, and per process the restarts: they do
// not make the run invalid, and the Valid condition says how many there
// were, so that a valid run with disruptions does not read as one without
// elections or restarts.
func Planned(run *benchv1.BenchmarkRun) []string {
	sets := replicaSets(run)
	var out []string //nolint:prealloc // nil without planned changes
	for i := range run.Status.Results {
		res := &run.Status.Results[i]
		most := map[string]int32{}
		var order []string
		for _, srv := range res.Server {
			if srv.PlannedPrimaryChanges <= 0 {
				continue
			}
			rs := sets[srv.Pod]
			if rs == "" {
				rs = srv.Pod
			}
			if _, ok := most[rs]; !ok {
				order = append(order, rs)
			}
			most[rs] = max(most[rs], srv.PlannedPrimaryChanges)
		}
		for _, rs := range order {
			out = append(out, fmt.Sprintf("phase %s: %d planned change(s) of replica set %s's primary, caused by the phase's %d disruption(s), not counted",
				res.Name, most[rs], rs, len(res.Disruptions)))
		}
		for _, srv := range res.Server {
			if srv.PlannedRestarts > 0 {
				out = append(out, fmt.Sprintf("phase %s: %d planned restart(s) of %s, whose pod the phase's disruptions deleted, not counted",
					res.Name, srv.PlannedRestarts, srv.Pod))
			}
		}
	}
	return out
}

// expectedCacheBytes is the WiredTiger cache each data-bearing role was
// started with, as mongod sizes it: floor(1024 × wiredTigerCacheSizeGB)
// MiB (WiredTigerUtil::getCacheSizeMB, src/mongo/db/storage/wiredtiger/
// wiredtiger_util.cpp, passed to WiredTiger as "cache_size=<MB>M"), which
// serverStatus reports as wiredTiger.cache["maximum bytes configured"].
// mongos has no cache.
func expectedCacheBytes(run *benchv1.BenchmarkRun) map[benchv1.ProcessRole]int64 {
	out := map[benchv1.ProcessRole]int64{}
	gb := run.Spec.Topology.WiredTigerCacheSizeGB
	if gb == "" {
		gb = "1"
	}
	if b, ok := cacheBytes(gb); ok {
		out[benchv1.RoleStandalone], out[benchv1.RoleShard], out[benchv1.RoleMember] = b, b, b
	}
	if b, ok := cacheBytes(topology.ConfigServerCacheGB); ok {
		out[benchv1.RoleConfigServer] = b
	}
	return out
}

func cacheBytes(gb string) (int64, bool) {
	v, err := strconv.ParseFloat(gb, 64)
	if err != nil || v <= 0 {
		return 0, false
	}
	return int64(math.Floor(1024*v)) << 20, true
}

// Summary is the Valid condition's message for the problems found: each
// problem, then the elections the run's disruptions explain (Planned),
// and then what could not be checked.
func Summary(problems []Problem, planned, unchecked []string) string {
	var parts []string
	for _, p := range problems {
		parts = append(parts, p.Message)
	}
	if len(problems) == 0 {
		parts = append(parts, "no check failed: errors, process restarts, elections, cache size, connection limit, loader CPU")
	}
	parts = append(parts, planned...)
	if len(unchecked) > 0 {
		parts = append(parts, "not checked: "+strings.Join(unchecked, "; "))
	}
	return strings.Join(parts, "; ")
}

func orDefault(p *float64, def float64) float64 {
	if p == nil {
		return def
	}
	return *p
}

// pctString writes a percentage with up to three decimals.
func pctString(v float64) string {
	return strconv.FormatFloat(math.Round(v*1000)/1000, 'f', -1, 64)
}

func mib(b int64) string {
	return strconv.FormatInt(b>>20, 10) + " MiB"
}

// failoverLabels are the error labels a disruption explains: the codes the
// Server Discovery and Monitoring specification has drivers treat as "not
// primary" or "node is recovering" (NotWritablePrimary 10107,
// NotPrimaryNoSecondaryOk 13435, NotPrimaryOrSecondary 13436,
// InterruptedDueToReplStateChange 11602, PrimarySteppedDown 189,
// LegacyNotPrimary 10058, InterruptedAtShutdown 11600, ShutdownInProgress
// 91), the Go driver's other retryable codes of an unreachable server
// (HostUnreachable 6, HostNotFound 7, NetworkTimeout 89, SocketException
// 9001; x/mongo/driver/errors.go retryableCodes), and the loader's own
// labels for a lost connection, a call that found no server to send to,
// or outlived the operation timeout (internal/loader/mongodb
// ErrorLabel). A code the loader saw without its name (a write error
// carries none) is labelled Code<N>, and counts alike. A duplicate key or a validation failure in the same
// window is not the disruption's: it still counts.
var failoverLabels = func() map[string]bool {
	m := map[string]bool{"NetworkError": true, "ServerSelectionTimeout": true, "Timeout": true}
	for name, code := range map[string]int{
		"NotWritablePrimary": 10107, "NotPrimaryNoSecondaryOk": 13435, "NotPrimaryOrSecondary": 13436,
		"InterruptedDueToReplStateChange": 11602, "PrimarySteppedDown": 189, "LegacyNotPrimary": 10058,
		"InterruptedAtShutdown": 11600, "ShutdownInProgress": 91,
		"HostUnreachable": 6, "HostNotFound": 7, "NetworkTimeout": 89, "SocketException": 9001,
	} {
		m[name], m["Code"+strconv.Itoa(code)] = true, true
	}
	return m
}()

// disruptionErrors counts the failed calls of a phase that its
// disruptions explain: those with a failover's label in the 30 s after a
// disruption that was sent (Done, Unknown, or Failed once sent; a pod
// deletion that Failed deleted nothing and explains none).
func disruptionErrors(res *benchv1.PhaseResult) int64 {
	var n int64
	for _, d := range res.Disruptions {
		if d.Outcome.State == benchv1.DisruptionNotReached || d.Outcome.Sent == nil ||
			(d.Action.DeletesPod() && d.Outcome.State == benchv1.DisruptionFailed) { // nothing deleted
			continue
		}
		for _, e := range d.Errors {
			if failoverLabels[e.Label] {
				n += e.Count
			}
		}
	}
	return n
}

func plannedErrors(n int64) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("; %d more failed in disruptions' windows and are not counted", n)
}
