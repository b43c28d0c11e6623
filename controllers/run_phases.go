package controllers

// This file runs the benchmark phases of spec.phases (a loader Job each,
// the collection validator before the first Run phase, the merged
// results). The run's own lifecycle phase (status.phase) is in run_lifecycle.go.

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/results"
	"github.com/mongobench/mongobench/internal/topology"
)

// runPhases executes spec.phases in order, one loader Job each. The next
// phase is the first without a result in status, so a restarted manager
// never re-runs a finished phase and never loses one (a completed Job's
// result ConfigMaps stay until cleanup).
func (r *BenchmarkRunReconciler) runPhases(ctx context.Context, s *runState) (bool, error) {
	run := s.run
	for len(run.Status.Results) < len(run.Spec.Phases) {
		ph := &run.Spec.Phases[len(run.Status.Results)]
		run.Status.CurrentPhase = ph.Name
		if ph.Type == benchv1.PhaseLoad {
			s.setLifecycle(benchv1.RunLoading)
		} else {
			s.setLifecycle(benchv1.RunRunning)
			if ok, err := r.applyValidator(ctx, s); !ok || err != nil {
				return false, err
			}
		}
		name := topology.PhaseJobName(run, ph.Name)
		job := s.jobs[name]
		if job == nil {
			if len(s.recovering) > 0 {
				// A member an earlier phase's disruption deleted is not
				// back yet: the next phase measures the whole set. Its
				// pod's events wake the run; the run's timeout bounds it.
				return false, nil
			}
			if ok, err := r.clearStaleLedgers(ctx, s, ph, name); !ok || err != nil {
				return false, err
			}
			if err := r.create(ctx, topology.PhaseJob(run, ph, r.phaseDeadline(s, ph), r.Topology)); err != nil {
				return false, err
			}
			if g := ph.Grow; g != nil {
				mode := g.InsertMode
				if mode == "" {
					mode = benchv1.GrowAcknowledged
				}
				s.eventf(benchv1.EventPhaseStarted, "phase %s (Grow to %d records, %s inserts × %d threads) started as Job %s",
					ph.Name, g.TargetRecords, mode, max(g.InsertThreads, 1), name)
				return false, nil
			}
			s.eventf(benchv1.EventPhaseStarted, "phase %s (%s, %d loader(s) × %d threads) started as Job %s",
				ph.Name, ph.Type, max(run.Spec.Loaders, 1), max(ph.Threads, 1), name)
			return false, nil
		}
		if !r.jobDone(s, job, benchv1.ReasonPhaseFailed, "phase "+ph.Name, true) {
			if s.run.Status.Phase != benchv1.RunFailed && topology.StartBarrier(run, ph) {
				return false, r.openStartBarrier(ctx, s, ph, name)
			}
			return false, nil
		}
		merged, err := mergedResult(s, ph, name)
		if err != nil {
			s.fail(benchv1.ReasonResultInvalid, "phase %s: %v", ph.Name, err)
			return false, nil
		}
		podDeletionOutcomes(s, ph, name, merged)
		res := phaseResult(ph, merged)
		var problems []string
		res.Growth, problems = growthStatus(merged.Growth, len(topology.Processes(run)))
		for _, p := range problems {
			s.warnf(benchv1.EventTelemetryInvalid, "phase %s: %s", ph.Name, p)
		}
		if err := r.keepHistograms(ctx, s, ph, merged, &res); err != nil {
			return false, err
		}
		if err := r.keepTelemetry(ctx, s, ph, name, &res); err != nil {
			return false, err
		}
		run.Status.Results = append(run.Status.Results, res)
		if ph.Type == benchv1.PhaseRun || ph.Type == benchv1.PhaseGrow {
			run.Status.Summary = &benchv1.RunSummary{Phase: ph.Name, Throughput: res.Throughput, P99Micros: res.P99Micros}
		}
		s.eventf(benchv1.EventPhaseCompleted, "phase %s: %d operations in %s, %.2f ops/s, p99 %d µs, %d errors",
			ph.Name, res.Operations, time.Duration(res.RuntimeMillis)*time.Millisecond, res.Throughput, res.P99Micros, errorsOf(res))
	}
	return true, nil
}

// openStartBarrier starts a phase's loaders together: once every loader
// reported ready (its ready ConfigMap: connections open, waiting), the
// start ConfigMap sets one instant, StartLead ahead, at which every loader
// starts its clock. So the phase's window (first start to last end) has no
// stretch where only some loaders ran, whenever the pods got scheduled. A
// barrier that some loaders reached while others never do fails the phase
// after StartBarrierTimeout (a pod that cannot start fails it sooner:
// jobDone). The start ConfigMap, once created, is never changed: a
// restarted manager finds it and leaves it.
func (r *BenchmarkRunReconciler) openStartBarrier(ctx context.Context, s *runState, ph *benchv1.PhaseSpec, jobName string) error {
	if s.configMaps[contract.StartConfigMapName(jobName)] != nil {
		return nil
	}
	n := int(max(s.run.Spec.Loaders, 1))
	var waiting []string
	var firstReady time.Time
	for i := range n {
		cm := s.configMaps[contract.ReadyConfigMapName(jobName, i)]
		if cm == nil {
			waiting = append(waiting, strconv.Itoa(i))
			continue
		}
		if t := cm.CreationTimestamp.Time; firstReady.IsZero() || t.Before(firstReady) {
			firstReady = t
		}
	}
	if len(waiting) > 0 {
		if firstReady.IsZero() {
			return nil // nobody is waiting yet; a ready ConfigMap wakes us
		}
		timeout := orDefaultDuration(r.Limits.StartBarrier, DefaultLimits.StartBarrier)
		if waited := s.now.Sub(firstReady); waited < timeout {
			s.wakeAfter(timeout - waited)
			return nil
		}
		s.fail(benchv1.ReasonPhaseFailed, "phase %s: %d of %d loaders were ready to start, loader(s) %s still not after %v",
			ph.Name, n-len(waiting), n, strings.Join(waiting, ", "), timeout)
		return nil
	}
	at := s.now.Add(orDefaultDuration(r.Limits.StartLead, DefaultLimits.StartLead)).UTC()
	if err := r.create(ctx, topology.StartConfigMap(s.run, jobName, at)); err != nil {
		return err
	}
	s.eventf(benchv1.EventPhaseStarted, "phase %s: all %d loaders ready; they start at %s", ph.Name, n, at.Format(time.RFC3339Nano))
	return nil
}

// phaseDeadline bounds a phase's Job: its maxExecutionTime plus grace,
// plus a timed warm-up, plus the start barrier's wait (its timeout and
// lead) when its loaders start together, and never beyond what is left of
// the run's timeout. A warm-up of operations has no known length: such a
// phase, like one without maxExecutionTime, is bounded by the run's
// timeout alone.
func (r *BenchmarkRunReconciler) phaseDeadline(s *runState, ph *benchv1.PhaseSpec) time.Duration {
	left := time.Duration(math.MaxInt64)
	if s.run.Spec.Timeout != nil && s.run.Status.StartTime != nil {
		left = s.run.Status.StartTime.Add(s.run.Spec.Timeout.Duration).Sub(s.now)
	}
	untimedWarmup := ph.Warmup != nil && ph.Warmup.Operations != nil
	if ph.MaxExecutionTime != nil && !untimedWarmup {
		d := topology.WarmupDuration(ph) + max(ph.MaxExecutionTime.Duration, pausesEnd(ph)) + r.Limits.PhaseGrace
		if topology.StartBarrier(s.run, ph) {
			d += orDefaultDuration(r.Limits.StartBarrier, DefaultLimits.StartBarrier) + orDefaultDuration(r.Limits.StartLead, DefaultLimits.StartLead)
		}
		return min(d, left)
	}
	if left == time.Duration(math.MaxInt64) {
		return 24 * time.Hour
	}
	return left
}

// applyValidator runs the collMod Job before the first Run phase when
// spec.collection is set; it reports whether the validator is in place.
func (r *BenchmarkRunReconciler) applyValidator(ctx context.Context, s *runState) (bool, error) {
	run := s.run
	if run.Spec.Collection == nil || conditionTrue(run, benchv1.ConditionValidatorApplied) {
		return true, nil
	}
	name := topology.ValidatorJobName(run)
	job := s.jobs[name]
	if job == nil {
		if err := r.create(ctx, topology.ValidatorJob(run, r.Topology)); err != nil {
			return false, err
		}
		s.setCondition(benchv1.ConditionValidatorApplied, metav1.ConditionFalse, benchv1.ReasonApplying, "Job "+name+" applies spec.collection with collMod")
		s.eventf(benchv1.EventApplyingValidator, "started Job %s to apply the collection validator", name)
		return false, nil
	}
	// collMod reports through its exit code only: no result ConfigMap.
	if !r.jobDone(s, job, benchv1.ReasonValidatorFailed, "applying spec.collection", false) {
		return false, nil
	}
	s.setCondition(benchv1.ConditionValidatorApplied, metav1.ConditionTrue, benchv1.ReasonApplied,
		fmt.Sprintf("validationLevel %s, validationAction %s", run.Spec.Collection.ValidationLevel, run.Spec.Collection.ValidationAction))
	s.eventf(benchv1.EventValidatorApplied, "collection validator applied")
	return true, nil
}

// keepHistograms stores a phase's merged result in the ConfigMap
// <run>-<phase>-histograms, which outlives the loaders' result ConfigMaps,
// and names it in res: status keeps percentiles, the ConfigMap the
// histograms they came from. Like telemetry it never fails the phase: a
// merge that cannot be encoded within a ConfigMap's share (results.Encode)
// leaves res without it and says why in a Warning event. A phase is merged
// again when its status did not reach the API server (a restart, a
// conflict): the ConfigMap stored the first time holds the same merge of
// the same results, and r.create takes AlreadyExists as stored.
func (r *BenchmarkRunReconciler) keepHistograms(ctx context.Context, s *runState, ph *benchv1.PhaseSpec, merged *results.Result,
	res *benchv1.PhaseResult) error {
	data, err := results.Encode(merged)
	if err != nil {
		s.warnf(benchv1.EventHistogramsNotKept, "phase %s: the merged histograms are not kept, the results in status stand without them: %v",
			ph.Name, err)
		return nil
	}
	if err := r.create(ctx, topology.HistogramsConfigMap(s.run, ph.Name, data)); err != nil {
		return err
	}
	res.Histograms = topology.HistogramsConfigMapName(s.run, ph.Name)
	return nil
}

// mergedResult decodes the result ConfigMaps of a phase's loaders, checks
// that each is the one expected, and merges them exactly.
func mergedResult(s *runState, ph *benchv1.PhaseSpec, jobName string) (*results.Result, error) {
	n := int(max(s.run.Spec.Loaders, 1))
	rs := make([]*results.Result, 0, n)
	want := results.KindRun
	switch ph.Type {
	case benchv1.PhaseLoad:
		want = results.KindLoad
	case benchv1.PhaseGrow:
		want = results.KindGrow
	}
	for i := 0; i < n; i++ {
		cm := s.configMaps[contract.ResultConfigMapName(jobName, i)]
		if cm == nil {
			return nil, fmt.Errorf("result of loader %d (ConfigMap %s) is missing", i, contract.ResultConfigMapName(jobName, i))
		}
		data, ok := cm.BinaryData[contract.ConfigMapKey]
		if !ok {
			return nil, fmt.Errorf("result of loader %d (ConfigMap %s) has no %s", i, cm.Name, contract.ConfigMapKey)
		}
		res, err := results.Decode(data)
		if err != nil {
			return nil, fmt.Errorf("result of loader %d (ConfigMap %s) is unusable: %w", i, cm.Name, err)
		}
		if res.Kind != want || res.Loader.Index != i || res.Loader.Count != n {
			return nil, fmt.Errorf("ConfigMap %s holds the %s result of loader %d of %d, want the %s result of loader %d of %d",
				cm.Name, res.Kind, res.Loader.Index, res.Loader.Count, want, i, n)
		}
		rs = append(rs, res)
	}
	merged, err := results.Merge(rs)
	if err != nil {
		return nil, fmt.Errorf("merge loader results: %w", err)
	}
	if err := checkDisruptions(ph, merged); err != nil {
		return nil, err
	}
	return merged, nil
}

func errorsOf(res benchv1.PhaseResult) int64 {
	var n int64
	for _, o := range res.OperationStats {
		n += o.Errors
	}
	return n
}

func orDefaultDuration(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// pausesEnd is when the phase's loaders may still be waiting for the
// reports of its Pauses, from the start of its measured window: each
// Pause's instant plus its duration plus contract.PauseReportWait (0
// without Pauses).
func pausesEnd(ph *benchv1.PhaseSpec) time.Duration {
	var end time.Duration
	for i := range ph.Disruptions {
		if d := &ph.Disruptions[i]; d.Action == benchv1.DisruptionPause && d.Duration != nil {
			end = max(end, d.At.Duration+d.Duration.Duration+contract.PauseReportWait)
		}
	}
	return end
}
