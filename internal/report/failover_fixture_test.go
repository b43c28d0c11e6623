package report

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/results"
)

// The failover study: workload A at a fixed rate against a three-member
// replica set, two loaders, a StepDown 30 s into the measured window and a
// second one at 170 s that the phase, bounded by its operations (about
// 150 s at its target), never reaches; an axis turning the driver's
// retryable writes on and off, three repetitions. What each repetition
// measures follows what the loaders measure of a stepdown
// (docs/disruptions.md): the primary steps down once an electable
// secondary caught up (the command's ~1 s), writes fail with
// NotWritablePrimary or InterruptedDueToReplStateChange until the drivers
// find the new primary (~1.5-2.5 s), with retryable writes the driver sends
// most of them again once, so few fail; reads recover sooner.

// failoverAt and failoverLate are the two disruptions' at.
const (
	failoverAt   = 30 * time.Second
	failoverLate = 170 * time.Second
)

func failover() fixture {
	run := benchv1.PhaseSpec{Name: "a", Type: benchv1.PhaseRun, Threads: 16, Target: ptr.To[int64](4000),
		MaxExecutionTime: &metav1.Duration{Duration: 3 * time.Minute},
		Workload:         &benchv1.WorkloadParameters{OperationCount: ptr.To[int64](600000)},
		Warmup:           &benchv1.WarmupSpec{Duration: &metav1.Duration{Duration: 20 * time.Second}},
		Disruptions: []benchv1.Disruption{
			{At: metav1.Duration{Duration: failoverAt}, Action: benchv1.DisruptionStepDown},
			{At: metav1.Duration{Duration: failoverLate}, Action: benchv1.DisruptionStepDown, StepDownSecs: ptr.To[int32](30),
				SecondaryCatchUpPeriodSecs: ptr.To[int32](5)},
		},
	}
	phases := []phaseModel{
		{spec: benchv1.PhaseSpec{Name: "load", Type: benchv1.PhaseLoad, Threads: 16}, mix: map[string]float64{"INSERT": 1}, ops: 100000},
		{spec: run, mix: map[string]float64{"READ": 0.5, "UPDATE": 0.5}, ops: 600000, points: 75},
	}
	var cells []cellModel
	for _, retry := range []bool{true, false} {
		name := map[bool]string{true: "on", false: "off"}[retry]
		cells = append(cells, cellModel{
			values:     []benchv1.SweepCellValue{{Axis: "retryWrites", Value: name}},
			throughput: map[string]float64{"load": 9200, "a": 3990},
			threads:    16, processes: 3,
			disrupt: func(aux *rand.Rand, r *benchv1.BenchmarkRun, ps *benchv1.PhaseSpec, res *benchv1.PhaseResult) {
				stepDowns(aux, r, ps, res, retry)
			},
		})
	}
	tmpl := *studyTemplate.DeepCopy()
	tmpl.Topology = benchv1.TopologySpec{Mode: benchv1.TopologyReplicaSet, Members: ptr.To[int32](3), Image: "mongo:8.0.16",
		WiredTigerCacheSizeGB: "1"}
	tmpl.Workload = benchv1.WorkloadSpec{Preset: "a", RecordCount: ptr.To[int64](100000)}
	tmpl.Driver = benchv1.DriverSpec{WriteConcern: "majority"}
	tmpl.Loaders = 2
	for _, p := range phases {
		tmpl.Phases = append(tmpl.Phases, p.spec)
	}
	patch := func(on bool) *runtime.RawExtension {
		b, _ := json.Marshal(map[string]any{"driver": map[string]any{"retryWrites": on}})
		return &runtime.RawExtension{Raw: b}
	}
	return studyModel{
		name: "failover", namespace: "bench", seed: 27, current: true,
		spec: benchv1.BenchmarkSweepSpec{
			Template: tmpl,
			Axes: []benchv1.SweepAxis{{Name: "retryWrites", Values: []benchv1.SweepValue{
				{Name: "on", Patch: patch(true)}, {Name: "off", Patch: patch(false)},
			}}},
			Repetitions: 3, Order: benchv1.SweepShuffled, Seed: ptr.To[int64](7), Parallelism: 1,
			FailurePolicy: benchv1.SweepContinue,
		},
		phases: phases, cells: cells,
	}.build()
}

// stepDowns measures the phase's two disruptions: the first Done, the
// second NotReached (the phase's operations ran out first). The series
// dips where writes stalled, and the p99 of each operation type jumps.
func stepDowns(aux *rand.Rand, run *benchv1.BenchmarkRun, ps *benchv1.PhaseSpec, r *benchv1.PhaseResult, retry bool) {
	window := r.StartTime.Add(ps.Warmup.Duration.Duration)
	between := func(lo, hi float64) float64 { return lo + aux.Float64()*(hi-lo) }
	us := func(lo, hi float64) int64 { return int64(between(lo, hi) * 1e6) }
	sent := metav1.NewMicroTime(window.Add(failoverAt))
	action := us(0.9, 1.3)
	write := us(1.6, 2.4)
	if !retry {
		// Without a retry every write in flight fails, and the first
		// success waits for the driver's next check of the set.
		write += us(0.1, 0.4)
	}
	read := us(0.3, 0.7)
	primary := us(1.3, float64(write)/1e6)
	d := benchv1.DisruptionResult{
		Index: 0, Action: benchv1.DisruptionStepDown, At: metav1.Duration{Duration: failoverAt}, Instant: sent,
		Outcome: benchv1.DisruptionOutcome{State: benchv1.DisruptionDone, Sent: &sent, DurationMicros: &action,
			Primary: fmt.Sprintf("%s-db-0.%s-db:27017", run.Name, run.Name)},
		WriteUnavailable: &benchv1.LoaderTimes{MaxMicros: write, MedianMicros: write - us(0.05, 0.3), Loaders: 2},
		ReadUnavailable:  &benchv1.LoaderTimes{MaxMicros: read, MedianMicros: read - us(0.02, 0.1), Loaders: 2},
		NewPrimary:       &benchv1.LoaderTimes{MaxMicros: primary, MedianMicros: primary - us(0.01, 0.1), Loaders: 2},
		Before:           &benchv1.DisruptionPerformance{Millis: 30000, Throughput: math.Round(between(3985, 3999)*10) / 10, P99Micros: us(0.0026, 0.003)},
		After:            &benchv1.DisruptionPerformance{Millis: 60000, Throughput: math.Round(between(3980, 3995)*10) / 10, P99Micros: us(0.0028, 0.0034)},
	}
	if retry {
		d.Retried = 150 + aux.Int64N(60)
		d.RetriedOK = d.Retried - aux.Int64N(4)
		d.Errors = []benchv1.DisruptionErrorCount{{Label: "InterruptedDueToReplStateChange", Count: 2 + aux.Int64N(6)}}
		if n := d.Retried - d.RetriedOK; n > 0 {
			d.Errors = append(d.Errors, benchv1.DisruptionErrorCount{Label: "NotWritablePrimary", Count: n})
		}
	} else {
		// Reads are retried either way (retryReads is the driver's default).
		d.Retried = 20 + aux.Int64N(20)
		d.RetriedOK = d.Retried
		d.Errors = []benchv1.DisruptionErrorCount{{Label: "NotWritablePrimary", Count: 300 + aux.Int64N(120)},
			{Label: "InterruptedDueToReplStateChange", Count: 30 + aux.Int64N(20)}, {Label: "PrimarySteppedDown", Count: 1 + aux.Int64N(3)}}
	}
	// Status lists the labels most frequent first.
	slices.SortStableFunc(d.Errors, func(a, b benchv1.DisruptionErrorCount) int { return cmp.Compare(b.Count, a.Count) })
	late := benchv1.DisruptionResult{Index: 1, Action: benchv1.DisruptionStepDown, At: metav1.Duration{Duration: failoverLate},
		Instant: metav1.NewMicroTime(window.Add(failoverLate)), Outcome: benchv1.DisruptionOutcome{State: benchv1.DisruptionNotReached}}
	r.Disruptions = []benchv1.DisruptionResult{d, late}

	// The series: throughput stalls in the interval of the instant and
	// recovers, the loaders catching up with the target's schedule after;
	// each operation's p99 holds the stalled calls.
	ts := r.TimeSeries
	at := int(failoverAt.Milliseconds() / ts.IntervalMillis)
	stall := float64(write) / float64(ts.IntervalMillis*1000)
	ts.Throughput[at] = math.Round(ts.Throughput[at]*math.Max(0.05, 1-stall)*100) / 100
	ts.Throughput[at+1] = math.Round(ts.Throughput[at+1]*1.35*100) / 100
	for _, op := range []struct {
		name       string
		p99, stall int64
	}{{"READ", 2400, read}, {"UPDATE", 3300, write}} {
		s := benchv1.OperationSeries{Name: op.name, Values: make([]int64, len(ts.Throughput))}
		for i := range s.Values {
			s.Values[i] = op.p99 + aux.Int64N(op.p99/5)
		}
		s.Values[at] = op.stall
		s.Values[at+1] = op.stall / 3
		ts.P99Micros = append(ts.P99Micros, s)
	}
}

// failoverMerged is a merged result of the run's phase a as the
// controller keeps it (only what the charts read: the disruptions, with
// every loader's measurements and the 100 ms series around each), in
// line with the run's status: writes stall until the slowest loader's
// first success, failing fast without retryable writes and waiting in the
// driver's retry with them.
func failoverMerged(run *benchv1.BenchmarkRun) *results.Result {
	res := resultOf(run, "a")
	d := &res.Disruptions[0]
	retry := run.Spec.Driver.RetryWrites
	m := &results.Result{Version: results.FormatVersion, Kind: results.KindRun, Loader: results.Identity{Index: 0, Count: 2, Threads: 16},
		Start: res.StartTime.Time, End: res.CompletionTime.Time, RuntimeMillis: res.RuntimeMillis, StopReason: results.StopCompleted}
	write, read := d.WriteUnavailable.MaxMicros, d.ReadUnavailable.MaxMicros
	md := results.Disruption{Index: 0, Action: string(d.Action), AtMillis: d.At.Milliseconds(), Instant: d.Instant.Time,
		Outcome: &results.DisruptionOutcome{State: results.DisruptionDone, Sent: d.Outcome.Sent.Time,
			Returned: ptr.To(d.Outcome.Sent.Add(time.Duration(*d.Outcome.DurationMicros) * time.Microsecond)), Primary: d.Outcome.Primary},
		Loaders: []results.DisruptionLoader{
			{Index: 0, WriteUnavailableMicros: ptr.To(write), ReadUnavailableMicros: ptr.To(read), Writes: 40, Reads: 12,
				NewPrimaryMicros: ptr.To(d.NewPrimary.MaxMicros)},
			{Index: 1, WriteUnavailableMicros: ptr.To(d.WriteUnavailable.MedianMicros), ReadUnavailableMicros: ptr.To(d.ReadUnavailable.MedianMicros),
				Writes: 38, Reads: 11, NewPrimaryMicros: ptr.To(d.NewPrimary.MedianMicros)},
		},
		Errors: map[string]int64{}, Retried: d.Retried, RetriedOK: d.RetriedOK,
		SeriesStartMillis: -results.DisruptionBeforeMillis, Series: results.Series{IntervalMillis: results.DisruptionIntervalMillis}}
	for _, e := range d.Errors {
		md.Errors[e.Label] = e.Count
	}
	rng := rand.New(rand.NewPCG(27, uint64(write)))
	for i := range results.MaxDisruptionPoints {
		// The interval's end, in µs from the instant.
		end := (md.SeriesStartMillis + int64(i+1)*results.DisruptionIntervalMillis) * 1000
		start := end - results.DisruptionIntervalMillis*1000
		p := results.Point{Millis: results.DisruptionIntervalMillis}
		for _, op := range []struct {
			name string
			down int64
			base int64
		}{{"READ", read, 900}, {"UPDATE", write, 1400}} {
			po := results.PointOp{Name: op.name, Latency: results.NewSeriesHistogram()}
			n := int64(190 + rng.IntN(20))
			switch {
			case start >= 0 && end <= op.down && !retry && op.name == "UPDATE":
				// Each write fails at once and the thread tries the next.
				po.Count, po.Failed = n+rng.Int64N(40), n+rng.Int64N(40)
				po.Count = max(po.Count, po.Failed)
			case start >= 0 && end <= op.down:
				// Waiting: in the driver's retry, or for a primary.
				po.Count = rng.Int64N(3)
			case start >= 0 && start < op.down:
				// The first successes: the calls held since they started,
				// at or after the instant.
				po.Count = n * 2
				for range po.Count {
					po.Latency.Record(op.down - rng.Int64N(op.down/4) + rng.Int64N(op.base))
				}
			default:
				po.Count = n
				for range n {
					po.Latency.Record(op.base/2 + rng.Int64N(op.base))
				}
			}
			p.Ops = append(p.Ops, po)
		}
		md.Series.Points = append(md.Series.Points, p)
	}
	m.Disruptions = []results.Disruption{md, {Index: 1, Action: string(benchv1.DisruptionStepDown), AtMillis: failoverLate.Milliseconds(),
		Instant: res.Disruptions[1].Instant.Time, Outcome: &results.DisruptionOutcome{State: results.DisruptionNotReached},
		Loaders: []results.DisruptionLoader{{Index: 0}, {Index: 1}}}}
	return m
}
