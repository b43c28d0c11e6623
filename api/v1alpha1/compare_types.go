package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// CompareSpec makes a run a regression gate: once it succeeded, each
// metric is compared with a baseline, status.comparison holds the
// verdicts and the Regressed condition sums them up (kubectl mongobench
// wait exits 3 when it is True).
//
// +kubebuilder:validation:XValidation:rule="self.metrics.all(m, self.metrics.exists_one(n, n.phase == m.phase && (has(n.operation) ? n.operation : '-') == (has(m.operation) ? m.operation : '-') && n.metric == m.metric))",message="each phase, operation and metric may be compared once"
type CompareSpec struct {
	// Baseline is what the run is compared with.
	Baseline CompareBaseline `json:"baseline"`

	// Metrics to compare.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=32
	Metrics []CompareMetric `json:"metrics"`

	// PValue is the significance of the history test (default 0.001):
	// a change counts when the probability of seeing it by chance is
	// below it.
	// +kubebuilder:validation:XValidation:rule="self > 0.0 && self <= 0.5",message="pValue must be in (0, 0.5]"
	// +optional
	PValue *float64 `json:"pValue,omitempty"`

	// MinMagnitudePercent is the smallest change the history test reports
	// (default 5): a significant 1% change is real but rarely matters.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +optional
	MinMagnitudePercent *float64 `json:"minMagnitudePercent,omitempty"`

	// Acknowledged lists known regressions: a Regressed verdict of such a
	// metric becomes Acknowledged, which does not fail the gate but stays
	// visible, until the acknowledgement expires.
	// +kubebuilder:validation:MaxItems=32
	// +optional
	Acknowledged []CompareAcknowledgement `json:"acknowledged,omitempty"`
}

// CompareBaseline is exactly one of a run, a sweep's cell, or a history
// of comparable runs.
//
// +kubebuilder:validation:XValidation:rule="[has(self.runRef), has(self.sweepRef), has(self.history)].filter(x, x).size() == 1",message="baseline sets exactly one of runRef, sweepRef or history"
type CompareBaseline struct {
	// RunRef names a BenchmarkRun of the namespace: its results are the
	// reference, each metric judged by its maxRegressionPercent.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +optional
	RunRef string `json:"runRef,omitempty"`

	// SweepRef names a BenchmarkSweep of the namespace and one of its
	// cells: the medians of the cell's successful runs are the reference.
	// +optional
	SweepRef *SweepCellRef `json:"sweepRef,omitempty"`

	// History compares the run with earlier comparable runs (kept
	// BenchmarkRuns, their results in status): the runs since the
	// history's last change point, by a t-test with pValue and
	// minMagnitudePercent. With fewer than minRuns, each metric's
	// maxRegressionPercent decides against the history's median, and the
	// verdict says so.
	// +optional
	History *HistoryBaseline `json:"history,omitempty"`
}

// SweepCellRef names a cell of a sweep.
type SweepCellRef struct {
	// Name of the BenchmarkSweep.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	Name string `json:"name"`
	// Cell names the cell by axis value names, e.g. {topologies: 4-shards}.
	// A run's baseline must name one; a sweep's may leave axes out (they
	// match the cell being compared) or omit the cell (the same cell).
	// +kubebuilder:validation:MaxProperties=6
	// +optional
	Cell map[string]SweepValueName `json:"cell,omitempty"`
}

// HistoryBaseline selects the comparable history of a run.
type HistoryBaseline struct {
	// Selector chooses the history's runs; default: the runs with the
	// same environment fingerprint and the same spec hash (labels
	// bench.mongobench.io/fingerprint and bench.mongobench.io/spec-hash).
	// Only Succeeded runs that completed before this one count.
	// +optional
	Selector *metav1.LabelSelector `json:"selector,omitempty"`
	// Window is how many of the latest runs make the history (default 30).
	// +kubebuilder:default=30
	// +kubebuilder:validation:Minimum=2
	// +kubebuilder:validation:Maximum=500
	// +optional
	Window int32 `json:"window,omitempty"`
	// MinRuns is the fewest runs the test needs (default 5).
	// +kubebuilder:default=5
	// +kubebuilder:validation:Minimum=2
	// +kubebuilder:validation:Maximum=500
	// +optional
	MinRuns int32 `json:"minRuns,omitempty"`
}

// CompareMetricKind is what is compared.
// +kubebuilder:validation:Enum=throughput;p99;p999;mean;intendedP99;unavailabilityWrites;unavailabilityReads
// +kubebuilder:validation:MaxLength=20
type CompareMetricKind string

// Metric kinds.
const (
	MetricThroughput CompareMetricKind = "throughput"
	MetricP99        CompareMetricKind = "p99"
	MetricP999       CompareMetricKind = "p999"
	MetricMean       CompareMetricKind = "mean"
	// MetricIntendedP99 is the p99 of intended latencies (the phase's, or
	// an operation's), kept with measurement.interval intended or both.
	MetricIntendedP99 CompareMetricKind = "intendedP99"
	// MetricUnavailabilityWrites is how long writes were unavailable in a
	// phase with disruptions, in µs: the maximum over the phase's
	// disruptions of status.results[].disruptions[].writeUnavailable.maxMicros,
	// that is the worst loader in the worst disruption.
	//
	// The maximum over the loaders, not their median: an application's
	// outage is its slowest client's, and what a failover gate is there to
	// catch (a driver that finds the new primary a heartbeat later, an
	// election that takes seconds longer) often hits one client first; the
	// median of two or three loaders would hide it. The maximum over the
	// disruptions for the same reason: the phase is as available as its
	// worst failover. Stability across repetitions does not come from the
	// figure but from how the gate reads it: against a sweep's cell or its
	// own repetitions it compares the median over the runs, against a
	// history it tests against the history's own spread. Unavailability
	// varies from run to run far more than throughput (the election's
	// timing, the driver's next check of the servers), so compare it with
	// several repetitions or a history, and with a wider
	// maxRegressionPercent than a throughput's (docs/ci-gate.md).
	//
	// A phase whose disruption left writes unmeasured fails the gate
	// (Regressed, whatever the baseline, the verdict's basis saying why):
	// a loader that wrote after the disruption and never succeeded again
	// (writeUnavailable.missing > 0), whose maximum would be only a lower
	// bound, or a disruption that did not happen (outcome Failed or
	// NotReached), after which the figure would measure no failover at
	// all. Needs the phase to have disruptions; it is the phase's as a
	// whole (no operation).
	MetricUnavailabilityWrites CompareMetricKind = "unavailabilityWrites"
	// MetricUnavailabilityReads is the same for reads (readUnavailable).
	MetricUnavailabilityReads CompareMetricKind = "unavailabilityReads"
)

// Unavailability reports whether the metric is one of a phase's
// disruptions (unavailabilityWrites, unavailabilityReads).
func (k CompareMetricKind) Unavailability() bool {
	return k == MetricUnavailabilityWrites || k == MetricUnavailabilityReads
}

// CompareDirection says which way a metric gets better.
// +kubebuilder:validation:Enum=HigherIsBetter;LowerIsBetter
// +kubebuilder:validation:MaxLength=14
type CompareDirection string

// Directions.
const (
	HigherIsBetter CompareDirection = "HigherIsBetter"
	LowerIsBetter  CompareDirection = "LowerIsBetter"
)

// CompareMetric is one compared number of a phase.
//
// +kubebuilder:validation:XValidation:rule="self.metric != 'p999' || has(self.operation)",message="p999 is kept per operation: name the operation"
// +kubebuilder:validation:XValidation:rule="!(self.metric in ['unavailabilityWrites', 'unavailabilityReads']) || !has(self.operation)",message="unavailabilityWrites and unavailabilityReads are a phase's, over its disruptions: leave operation out"
type CompareMetric struct {
	// Phase names the phase (spec.phases[].name).
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=16
	Phase string `json:"phase"`
	// Operation names a YCSB operation (READ, UPDATE, INSERT, SCAN,
	// READ-MODIFY-WRITE, ...); without it the phase as a whole: its
	// throughput, its p99 over every database call, its mean latency.
	// +kubebuilder:validation:MaxLength=32
	// +optional
	Operation string `json:"operation,omitempty"`
	// Metric is throughput (ops/s), p99, p999, mean or intendedP99
	// (latency, µs; intendedP99 needs measurement.interval intended or
	// both on the phase), or unavailabilityWrites or unavailabilityReads
	// (µs; the longest any loader could not write, or read, after any of
	// the phase's disruptions, which it needs; a disruption the loaders
	// never recovered from fails the gate).
	Metric CompareMetricKind `json:"metric"`
	// Direction is which way is better; default HigherIsBetter for
	// throughput, LowerIsBetter for latencies and unavailability.
	// +optional
	Direction CompareDirection `json:"direction,omitempty"`
	// MaxRegressionPercent is the threshold of the runRef and sweepRef
	// baselines and of the history's fallback: a change worse than this
	// is Regressed, better than it Improved (default 10).
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1000
	// +optional
	MaxRegressionPercent *float64 `json:"maxRegressionPercent,omitempty"`
}

// CompareAcknowledgement marks a known regression.
type CompareAcknowledgement struct {
	// Metric names the metric as status.comparison does: "<phase>
	// <metric>" or "<phase> <operation> <metric>", e.g. "S3 throughput",
	// "S2 READ p99".
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	Metric string `json:"metric"`
	// Reason is shown with the verdict (a ticket, a decision).
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	Reason string `json:"reason"`
	// Until is when the acknowledgement expires; without it, never.
	// +optional
	Until *metav1.Time `json:"until,omitempty"`
}

// CompareVerdict is the outcome of one metric's comparison.
type CompareVerdict string

// Verdicts.
const (
	VerdictImproved     CompareVerdict = "Improved"
	VerdictUnchanged    CompareVerdict = "Unchanged"
	VerdictRegressed    CompareVerdict = "Regressed"
	VerdictAcknowledged CompareVerdict = "Acknowledged"
	// VerdictInvalid: the gated run is not Valid (its Valid condition
	// says why): its numbers are not compared, it neither passes nor
	// regresses.
	VerdictInvalid CompareVerdict = "Invalid"
)

// MetricComparison is one metric's verdict.
type MetricComparison struct {
	// Metric names it: "<phase> <metric>" or "<phase> <operation> <metric>".
	Metric string `json:"metric"`
	// Baseline is the reference's value (a median), Current the run's.
	Baseline float64 `json:"baseline"`
	Current  float64 `json:"current"`
	// ChangePercent is Current against Baseline, in % (+ is larger).
	ChangePercent float64 `json:"changePercent"`
	// PValue of the history test; absent for thresholds.
	// +optional
	PValue *float64 `json:"pValue,omitempty"`
	// Verdict is Improved, Unchanged, Regressed, Acknowledged or Invalid.
	Verdict CompareVerdict `json:"verdict"`
	// Basis says what the run was compared with ("baseline run x",
	// "28-run history", "thresholds: history has 3 of 5 runs"), or why it
	// fails whatever the baseline ("writes never recovered in run x: ...";
	// Current is then a lower bound).
	Basis string `json:"basis"`
	// Acknowledged is the reason of the acknowledgement applied.
	// +optional
	Acknowledged string `json:"acknowledged,omitempty"`
}
