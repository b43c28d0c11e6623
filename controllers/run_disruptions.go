package controllers

// This file turns a phase's merged disruptions (internal/results, measured
// by every loader; loader 0 acted) into status.results[].disruptions, and
// tells the elections a StepDown caused, seen in the phase's telemetry,
// from the others (status.results[].server[].plannedPrimaryChanges).

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/results"
	"github.com/mongobench/mongobench/internal/telemetry"
	"github.com/mongobench/mongobench/internal/topology"
)

// Bounds of what a loader reports of a disruption, copied into status: a
// pod's output is not trusted to fit.
const (
	// maxDisruptionErrorLabels is how many error labels status lists per
	// disruption; the rarer ones are summed into disruptionOtherLabel.
	maxDisruptionErrorLabels = 16
	disruptionOtherLabel     = "Other"
	// maxDisruptionLabel bounds an error label (MongoDB's code names are
	// short: the longest is under 50 bytes).
	maxDisruptionLabel = 64
	// maxDisruptionError is the API's bound on outcome.error.
	maxDisruptionError = 1024
)

// checkDisruptions refuses a merged result whose disruptions are not the
// phase's: every disruption of the spec, once, with its action and at.
// The loaders were given exactly these (topology.Disruptions); anything
// else is a result of another phase or a loader that ignored them.
func checkDisruptions(ph *benchv1.PhaseSpec, m *results.Result) error {
	want := ph.Disruptions
	if ph.Type == benchv1.PhaseGrow {
		want = nil
	}
	if len(m.Disruptions) != len(want) {
		return fmt.Errorf("the loaders reported %d disruptions, the phase has %d", len(m.Disruptions), len(want))
	}
	for i := range want {
		d, w := &m.Disruptions[i], &want[i]
		if d.Index != i || d.Action != string(w.Action) || d.AtMillis != w.At.Milliseconds() {
			return fmt.Errorf("the loaders reported disruption %d as %s at %d ms, the phase has %s at %s", d.Index, d.Action, d.AtMillis,
				w.Action, w.At.Duration)
		}
	}
	return nil
}

// disruptionResults are a merged result's disruptions as status shows
// them: times over the loaders as maximum and median (never averaged),
// the outcome of the actor, the errors by label, the phase's throughput
// and p99 before each and once it recovered.
func disruptionResults(ph *benchv1.PhaseSpec, m *results.Result) []benchv1.DisruptionResult {
	var out []benchv1.DisruptionResult //nolint:prealloc // nil without disruptions: status leaves them out
	for i := range m.Disruptions {
		d := &m.Disruptions[i]
		target := ""
		if d.Index >= 0 && d.Index < len(ph.Disruptions) { // checkDisruptions made sure
			target = topology.DisruptionReplSet(&ph.Disruptions[d.Index])
		}
		r := benchv1.DisruptionResult{
			Index: int32(d.Index), Action: benchv1.DisruptionAction(d.Action), Target: target,
			At:      metav1.Duration{Duration: time.Duration(d.AtMillis) * time.Millisecond},
			Instant: metav1.NewMicroTime(d.Instant.UTC()),
			Outcome: disruptionOutcome(d.Outcome),
			Errors:  disruptionErrors(d.Errors),
			Retried: d.Retried, RetriedOK: d.RetriedOK,
		}
		r.WriteUnavailable = loaderTimes(d.WriteUnavailable())
		r.ReadUnavailable = loaderTimes(d.ReadUnavailable())
		r.NewPrimary = loaderTimes(d.NewPrimary())
		before, after := m.DisruptionPerformance(i)
		r.Before, r.After = performance(before), performance(after)
		out = append(out, r)
	}
	return out
}

func disruptionOutcome(o *results.DisruptionOutcome) benchv1.DisruptionOutcome {
	if o == nil {
		// Loader 0 acts and reports; a merged result without its outcome
		// says nothing of what was sent.
		return benchv1.DisruptionOutcome{State: benchv1.DisruptionUnknown, Error: "loader 0, the actor, reported no outcome"}
	}
	out := benchv1.DisruptionOutcome{State: benchv1.DisruptionState(o.State), Error: truncateBytes(o.Error, maxDisruptionError),
		Primary: truncateBytes(o.Primary, maxTelemetryText), Pod: truncateBytes(o.Pod, maxTelemetryText)}
	if o.Frozen != nil {
		f := metav1.NewMicroTime(o.Frozen.UTC())
		out.Frozen = &f
		if o.Thawed != nil && !o.Thawed.Before(*o.Frozen) {
			out.FrozenMicros = ptrTo(o.Thawed.Sub(*o.Frozen).Microseconds())
		}
	}
	if !o.Sent.IsZero() {
		sent := metav1.NewMicroTime(o.Sent.UTC())
		out.Sent = &sent
		if o.Returned != nil {
			out.DurationMicros = ptrTo(o.Returned.Sub(o.Sent).Microseconds())
		}
	}
	return out
}

// disruptionErrors are the error counts by label, the most frequent first
// (then by label), at most maxDisruptionErrorLabels of them: the rest are
// added to Other, which comes last.
func disruptionErrors(errs map[string]int64) []benchv1.DisruptionErrorCount {
	var out []benchv1.DisruptionErrorCount //nolint:prealloc // nil without errors
	for label, n := range errs {
		out = append(out, benchv1.DisruptionErrorCount{Label: truncateBytes(label, maxDisruptionLabel), Count: n})
	}
	order := func(a, b benchv1.DisruptionErrorCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Label, b.Label))
	}
	slices.SortFunc(out, order)
	// Two labels cut to the same prefix, or a label Other besides the
	// rarer ones, become one entry: the list is a map keyed by label.
	merged := out[:0]
	idx := map[string]int{}
	fold := func(e benchv1.DisruptionErrorCount) {
		if j, ok := idx[e.Label]; ok {
			merged[j].Count += e.Count
			return
		}
		idx[e.Label] = len(merged)
		merged = append(merged, e)
	}
	for i, e := range out {
		if i >= maxDisruptionErrorLabels-1 && len(out) > maxDisruptionErrorLabels {
			e.Label = disruptionOtherLabel
		}
		fold(e)
	}
	// Other, however many it holds, says the least: last.
	slices.SortStableFunc(merged, func(a, b benchv1.DisruptionErrorCount) int {
		return cmp.Compare(boolInt(a.Label == disruptionOtherLabel), boolInt(b.Label == disruptionOtherLabel))
	})
	return merged
}

func loaderTimes(t results.LoaderTimes, ok bool) *benchv1.LoaderTimes {
	if !ok {
		return nil
	}
	return &benchv1.LoaderTimes{MaxMicros: t.MaxMicros, MedianMicros: t.MedianMicros, Loaders: clamp32(t.Measured), Missing: clamp32(t.Missing)}
}

func performance(p *results.Performance) *benchv1.DisruptionPerformance {
	if p == nil {
		return nil
	}
	return &benchv1.DisruptionPerformance{Millis: p.Millis, Throughput: round2(p.Throughput), P99Micros: p.P99Micros}
}

// stretch is when a disruption's effects are expected: from when its
// action was sent (or its instant) to DisruptionAfterMillis after its
// instant. ok is false when nothing was sent (NotReached, or Failed
// before it could be) or nothing deleted (a pod deletion that Failed).
func stretch(d *benchv1.DisruptionResult) (from, to time.Time, ok bool) {
	o := &d.Outcome
	switch {
	case o.State == benchv1.DisruptionNotReached:
		return time.Time{}, time.Time{}, false
	case o.State == benchv1.DisruptionFailed && (o.Sent == nil || d.Action.DeletesPod()):
		// A pod deletion that Failed deleted nothing, whenever it was
		// requested.
		return time.Time{}, time.Time{}, false
	case o.State == benchv1.DisruptionFailed && d.Action == benchv1.DisruptionPause && o.Frozen == nil:
		// A Pause that Failed before it froze anything (refused, or its
		// container sent no signal).
		return time.Time{}, time.Time{}, false
	}
	from = d.Instant.Time
	if o.Sent != nil && o.Sent.Before(&d.Instant) {
		from = o.Sent.Time
	}
	to = d.Instant.Add(results.DisruptionAfterMillis * time.Millisecond)
	if o.Sent != nil && o.DurationMicros != nil {
		// An action that lasts (a Pause: until the thaw) explains what
		// follows its end as well: the frozen primary steps down when it
		// wakes and learns of the new term.
		to = latest(to, o.Sent.Add(time.Duration(*o.DurationMicros)*time.Microsecond+results.DisruptionAfterMillis*time.Millisecond))
	}
	return from, to, true
}

func latest(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// explainElections matches the phase's telemetry against its
// disruptions: a change of primary that a member of the replica set a
// disruption hits (the ReplicaSet topology's, or the shard's or config
// server's it targets) saw within the disruption's stretch (its sample up
// to one sampling interval later) is planned (server[].
// plannedPrimaryChanges), and the first such change after the instant,
// over the members, is the new primary's time from telemetry. A change
// beyond the times the telemetry kept (telemetry.MaxPrimaryChangeTimes)
// is never taken as planned, nor one a member of another replica set saw.
// Every action causes an election (a StepDown, a killed or restarted
// primary), or none the member sees (a restarted secondary). Then
// explainRestarts.
func explainElections(rep *telemetry.Payload, res *benchv1.PhaseResult, interval time.Duration, run *benchv1.BenchmarkRun, ph *benchv1.PhaseSpec) {
	if len(res.Disruptions) == 0 {
		return
	}
	byPod := map[string]*telemetry.ProcessPayload{}
	for i := range rep.Processes {
		byPod[rep.Processes[i].Pod] = &rep.Processes[i]
	}
	// The pods of the replica set each disruption hits: of an External
	// cluster (a StepDown of the set the loaders connect to), every
	// member the telemetry discovered, named by its host.
	hits := make([]map[string]bool, len(res.Disruptions))
	for j := range res.Disruptions {
		hits[j] = map[string]bool{}
		k := int(res.Disruptions[j].Index)
		switch {
		case k < 0 || k >= len(ph.Disruptions) || ph.Disruptions[k].Action == benchv1.DisruptionKillMongos:
		case topology.External(run):
			for _, srv := range res.Server {
				if srv.Role == benchv1.RoleMember {
					hits[j][srv.Pod] = true
				}
			}
		default:
			for _, p := range topology.DisruptionTargetProcesses(run, &ph.Disruptions[k]) {
				hits[j][p.Name] = true
			}
		}
	}
	for i := range res.Server {
		srv := &res.Server[i]
		p := byPod[srv.Pod]
		if p == nil {
			continue
		}
		var planned int32
		for _, at := range p.Series.PrimaryChangeTimes {
			for j := range res.Disruptions {
				d := &res.Disruptions[j]
				from, to, ok := stretch(d)
				if !ok || !hits[j][srv.Pod] || at.Before(from) || at.After(to.Add(interval)) {
					continue
				}
				planned++
				if since := at.Sub(d.Instant.Time); since >= 0 && (d.NewPrimaryTelemetryMicros == nil || since.Microseconds() < *d.NewPrimaryTelemetryMicros) {
					d.NewPrimaryTelemetryMicros = ptrTo(since.Microseconds())
				}
				break
			}
		}
		srv.PlannedPrimaryChanges = min(planned, srv.PrimaryChanges)
	}
	explainRestarts(byPod, res)
}

// explainRestarts: a pod deletion (KillPrimary, RestartMember) that was
// carried out explains one restart of the member whose pod it deleted,
// seen after it was sent (server[].plannedRestarts). Not within its 30 s
// stretch: the member comes back after its shutdown (up to its grace
// period), scheduling and start-up, which no fixed window bounds; a
// restart before the deletion, or a second one, is still a problem. A
// restart beyond the times the telemetry kept (telemetry.MaxRestartTimes)
// is never taken as planned.
func explainRestarts(byPod map[string]*telemetry.ProcessPayload, res *benchv1.PhaseResult) {
	for i := range res.Server {
		srv := &res.Server[i]
		p := byPod[srv.Pod]
		if p == nil || srv.Restarts == 0 {
			continue
		}
		used := make([]bool, len(p.Series.RestartTimes))
		var planned int32
		for j := range res.Disruptions {
			d := &res.Disruptions[j]
			if !d.Action.DeletesPod() || d.Outcome.State != benchv1.DisruptionDone || d.Outcome.Pod != srv.Pod || d.Outcome.Sent == nil {
				continue
			}
			for k, at := range p.Series.RestartTimes {
				if !used[k] && !at.Before(d.Outcome.Sent.Time) {
					used[k] = true
					planned++
					break
				}
			}
		}
		srv.PlannedRestarts = min(planned, srv.Restarts)
	}
}

// clearStaleLedgers makes sure that no ledger of a phase's disruptions
// exists before its Job is created: a ledger tells loader 0 that the
// disruption was sent already, by a pod of this Job that was replaced,
// and it then never acts. One left by an earlier Job of the same name (the
// Job deleted mid-phase and created again here, or a run of the same name
// deleted and created again before the garbage collector got to its
// ConfigMaps) would suppress the new Job's disruptions.
//
// The cache may not show a Job that exists (a restarted manager, a watch
// that lags): the Job and the ledgers are read from the API server, and a
// Job that exists there means nothing is stale (false: wait for the cache;
// the Job's event wakes the run). A ledger of this run or of a predecessor
// of the same name is deleted (with its UID as precondition); any other
// ConfigMap under that name fails the phase, since the loader would take
// it for a ledger. It reports whether the Job may be created. Only phases
// with disruptions pay these reads, once per Job creation.
func (r *BenchmarkRunReconciler) clearStaleLedgers(ctx context.Context, s *runState, ph *benchv1.PhaseSpec, jobName string) (bool, error) {
	names := topology.DisruptionLedgerNames(s.run, ph)
	if len(names) == 0 {
		return true, nil
	}
	err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: s.run.Namespace, Name: jobName}, &batchv1.Job{})
	switch {
	case err == nil:
		return false, nil
	case !apierrors.IsNotFound(err):
		return false, fmt.Errorf("get Job %s: %w", jobName, err)
	}
	for _, name := range names {
		cm := &corev1.ConfigMap{}
		err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: s.run.Namespace, Name: name}, cm)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return false, fmt.Errorf("get ConfigMap %s: %w", name, err)
		}
		if !ownedBy(cm, s.run.UID) && !ledgerOfPredecessor(cm, s.run) {
			s.fail(benchv1.ReasonPhaseFailed, "phase %s: ConfigMap %s exists and is not this run's: its loader 0 would take it for the ledger "+
				"of a disruption already sent, and never act; delete it or rename the run", ph.Name, name)
			return false, nil
		}
		uid := cm.UID
		if err := r.Delete(ctx, cm, client.Preconditions{UID: &uid}); err != nil && !apierrors.IsNotFound(err) {
			return false, fmt.Errorf("delete the stale ledger %s: %w", name, err)
		}
		s.eventf(benchv1.EventPhaseStarted, "phase %s: deleted the ledger %s an earlier Job %s left, so that the new Job's disruption %s runs",
			ph.Name, name, jobName, name)
	}
	return true, nil
}

// ledgerOfPredecessor: the object belongs to a BenchmarkRun of the same
// name that is gone (another UID): its garbage is collected, maybe not yet.
func ledgerOfPredecessor(obj metav1.Object, run *benchv1.BenchmarkRun) bool {
	ref := metav1.GetControllerOf(obj)
	return ref != nil && ref.Kind == "BenchmarkRun" && ref.Name == run.Name && ref.UID != run.UID
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
