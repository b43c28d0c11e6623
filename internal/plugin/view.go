package plugin

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/stats"
)

// resultsKind and resultsVersion identify the JSON document of
// "results -o json"; the version changes only if a field changes meaning
// or disappears (new fields may be added within a version).
const (
	resultsKind    = "BenchmarkRunResults"
	resultsVersion = 1
)

// resultsDoc is the results of a run as every output format sees them:
// one entry per finished benchmark phase, in execution order, each with
// its overall numbers and one row per operation type. It is the JSON
// shape of "results -o json" (documented in the command's help), kept
// apart from the API's status so the API can evolve without breaking
// scripts.
type resultsDoc struct {
	Kind      string `json:"kind"`
	Version   int    `json:"version"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// RunPhase is the run's status.phase (its lifecycle), not one of
	// Phases.
	RunPhase benchv1.RunLifecycle `json:"runPhase"`
	// Valid is the run's Valid condition, once it ended (absent for runs
	// from before the condition existed).
	Valid  *validDoc  `json:"valid,omitempty"`
	Phases []phaseDoc `json:"phases"`
}

// validDoc is the Valid condition: status True or False, the first
// problem's reason and a message listing every problem (and what could
// not be checked).
type validDoc struct {
	Status  string `json:"status"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// phaseDoc is one benchmark phase's results.
type phaseDoc struct {
	Name           string            `json:"name"`
	Type           benchv1.PhaseType `json:"type"`
	Loaders        int32             `json:"loaders"`
	Threads        int32             `json:"threads"`
	StartTime      metav1.Time       `json:"startTime"`
	CompletionTime metav1.Time       `json:"completionTime"`
	RuntimeMillis  int64             `json:"runtimeMillis"`
	// Count is YCSB's opsDone: top-level operations, failed ones included.
	Count int64 `json:"count"`
	// OpsPerSec is count / runtime, YCSB's [OVERALL] Throughput.
	OpsPerSec float64 `json:"opsPerSec"`
	// P99Micros is over every database call of the phase.
	P99Micros   int64  `json:"p99Micros"`
	StopReason  string `json:"stopReason"`
	LostInserts int64  `json:"lostInserts"`
	// MeasurementInterval is intended or both when the phase measured
	// intended latencies, and IntendedP99Micros their p99 over every
	// database call.
	MeasurementInterval string `json:"measurementInterval,omitempty"`
	IntendedP99Micros   *int64 `json:"intendedP99Micros,omitempty"`
	// StartSkewMillis is how far apart the loaders' measured windows
	// started (absent with one loader).
	StartSkewMillis *int64         `json:"startSkewMillis,omitempty"`
	Operations      []operationDoc `json:"operations"`
	// Warmup is what the phase's warm-up measured, apart from the rest.
	Warmup *warmupDoc `json:"warmup,omitempty"`
	// LoaderStats are each loader's figures.
	LoaderStats []loaderDoc `json:"loaderStats,omitempty"`
	// Disruptions are the phase's disruptions as status has them
	// (status.results[].disruptions: the API's field names and units).
	Disruptions []benchv1.DisruptionResult `json:"disruptions,omitempty"`
}

// warmupDoc is a phase's warm-up: its operations (count), runtime,
// throughput and p99 over every call, and its operations by type.
type warmupDoc struct {
	RuntimeMillis int64          `json:"runtimeMillis"`
	Count         int64          `json:"count"`
	OpsPerSec     float64        `json:"opsPerSec"`
	P99Micros     int64          `json:"p99Micros"`
	Operations    []operationDoc `json:"operations"`
}

// loaderDoc is one loader's figures of a phase: the connections it opened
// before its clock started and how long that took, its CPU use over the
// measured window in % of what it may use (cpuLimit), and how much of the
// window its CPU quota throttled it.
type loaderDoc struct {
	Index            int32    `json:"index"`
	Pod              string   `json:"pod"`
	Connections      int32    `json:"connections"`
	ConnectMillis    int64    `json:"connectMillis"`
	CPUPercent       *float64 `json:"cpuPercent,omitempty"`
	CPULimit         string   `json:"cpuLimit,omitempty"`
	ThrottledPercent *float64 `json:"throttledPercent,omitempty"`
}

// operationDoc is one operation type of a phase. Latencies cover
// successful operations, as in YCSB.
type operationDoc struct {
	Name   string `json:"name"`
	Count  int64  `json:"count"`
	Errors int64  `json:"errors"`
	// OpsPerSec is count / the phase's runtime.
	OpsPerSec  float64          `json:"opsPerSec"`
	AvgMicros  float64          `json:"avgMicros"`
	MinMicros  int64            `json:"minMicros"`
	MaxMicros  int64            `json:"maxMicros"`
	P50Micros  int64            `json:"p50Micros"`
	P95Micros  int64            `json:"p95Micros"`
	P99Micros  int64            `json:"p99Micros"`
	P999Micros int64            `json:"p999Micros"`
	Statuses   map[string]int64 `json:"statuses"`
	// Intended are the same successful operations' intended latencies
	// (measurement.interval intended or both).
	Intended *intendedDoc `json:"intended,omitempty"`
}

// intendedDoc is an operation's intended latencies, in µs.
type intendedDoc struct {
	AvgMicros  float64 `json:"avgMicros"`
	MinMicros  int64   `json:"minMicros"`
	MaxMicros  int64   `json:"maxMicros"`
	P50Micros  int64   `json:"p50Micros"`
	P95Micros  int64   `json:"p95Micros"`
	P99Micros  int64   `json:"p99Micros"`
	P999Micros int64   `json:"p999Micros"`
}

// newResultsDoc reads the results out of a run's status.
func newResultsDoc(run *benchv1.BenchmarkRun) *resultsDoc {
	doc := &resultsDoc{
		Kind:      resultsKind,
		Version:   resultsVersion,
		Namespace: run.Namespace,
		Name:      run.Name,
		RunPhase:  run.Status.Phase,
		Phases:    []phaseDoc{},
	}
	if c := meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionValid); c != nil {
		doc.Valid = &validDoc{Status: string(c.Status), Reason: c.Reason, Message: c.Message}
	}
	for i := range run.Status.Results {
		r := &run.Status.Results[i]
		ph := phaseDoc{
			Name:           r.Name,
			Type:           r.Type,
			Loaders:        r.Loaders,
			Threads:        r.Threads,
			StartTime:      r.StartTime,
			CompletionTime: r.CompletionTime,
			RuntimeMillis:  r.RuntimeMillis,
			Count:          r.Operations,
			OpsPerSec:      r.Throughput,
			P99Micros:      r.P99Micros,
			StopReason:     r.StopReason,
			LostInserts:    r.LostInserts,
			Operations:     operationDocs(r.OperationStats, r.RuntimeMillis),

			MeasurementInterval: string(r.MeasurementInterval),
			IntendedP99Micros:   r.IntendedP99Micros,
			StartSkewMillis:     r.StartSkewMillis,
		}
		if w := r.Warmup; w != nil {
			ph.Warmup = &warmupDoc{RuntimeMillis: w.RuntimeMillis, Count: w.Operations, OpsPerSec: w.Throughput, P99Micros: w.P99Micros,
				Operations: operationDocs(w.OperationStats, w.RuntimeMillis)}
		}
		for _, l := range r.LoaderStats {
			ph.LoaderStats = append(ph.LoaderStats, loaderDoc{Index: l.Index, Pod: l.Pod, Connections: l.Connections,
				ConnectMillis: l.ConnectMillis, CPUPercent: l.CPUPercent, CPULimit: l.CPULimit, ThrottledPercent: l.ThrottledPercent})
		}
		ph.Disruptions = r.Disruptions
		doc.Phases = append(doc.Phases, ph)
	}
	return doc
}

// operationDocs are the rows of a phase's (or its warm-up's) operations;
// ops/s is count / runtimeMillis.
func operationDocs(ops []benchv1.OperationResult, runtimeMillis int64) []operationDoc {
	out := make([]operationDoc, 0, len(ops))
	for _, op := range ops {
		statuses := make(map[string]int64, len(op.Statuses))
		for k, v := range op.Statuses {
			statuses[k] = v
		}
		d := operationDoc{
			Name:       op.Name,
			Count:      op.Count,
			Errors:     op.Errors,
			OpsPerSec:  stats.OpsPerSec(op.Count, runtimeMillis),
			AvgMicros:  op.AverageMicros,
			MinMicros:  op.MinMicros,
			MaxMicros:  op.MaxMicros,
			P50Micros:  op.P50Micros,
			P95Micros:  op.P95Micros,
			P99Micros:  op.P99Micros,
			P999Micros: op.P999Micros,
			Statuses:   statuses,
		}
		if it := op.Intended; it != nil {
			d.Intended = &intendedDoc{AvgMicros: it.AverageMicros, MinMicros: it.MinMicros, MaxMicros: it.MaxMicros,
				P50Micros: it.P50Micros, P95Micros: it.P95Micros, P99Micros: it.P99Micros, P999Micros: it.P999Micros}
		}
		out = append(out, d)
	}
	return out
}

// measuresIntended reports whether any phase of the document measured
// intended latencies: the table then has a column for them.
func (d *resultsDoc) measuresIntended() bool {
	for _, ph := range d.Phases {
		if ph.IntendedP99Micros != nil {
			return true
		}
		for _, op := range ph.Operations {
			if op.Intended != nil {
				return true
			}
		}
	}
	return false
}
