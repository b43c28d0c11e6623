package plugin

import (
	"math"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
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
	Kind      string           `json:"kind"`
	Version   int              `json:"version"`
	Namespace string           `json:"namespace"`
	Name      string           `json:"name"`
	RunPhase  benchv1.RunPhase `json:"runPhase"`
	Phases    []phaseDoc       `json:"phases"`
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
	P99Micros   int64          `json:"p99Micros"`
	StopReason  string         `json:"stopReason"`
	LostInserts int64          `json:"lostInserts"`
	Operations  []operationDoc `json:"operations"`
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
			Operations:     []operationDoc{},
		}
		for _, op := range r.OperationStats {
			statuses := make(map[string]int64, len(op.Statuses))
			for k, v := range op.Statuses {
				statuses[k] = v
			}
			ph.Operations = append(ph.Operations, operationDoc{
				Name:       op.Name,
				Count:      op.Count,
				Errors:     op.Errors,
				OpsPerSec:  opsPerSec(op.Count, r.RuntimeMillis),
				AvgMicros:  op.AverageMicros,
				MinMicros:  op.MinMicros,
				MaxMicros:  op.MaxMicros,
				P50Micros:  op.P50Micros,
				P95Micros:  op.P95Micros,
				P99Micros:  op.P99Micros,
				P999Micros: op.P999Micros,
				Statuses:   statuses,
			})
		}
		doc.Phases = append(doc.Phases, ph)
	}
	return doc
}

// opsPerSec is count / runtime, rounded to hundredths like the phase
// throughput in status (0 for an empty runtime rather than Inf, which
// JSON cannot carry).
func opsPerSec(count, runtimeMillis int64) float64 {
	if runtimeMillis <= 0 {
		return 0
	}
	return math.Round(float64(count)*1000/float64(runtimeMillis)*100) / 100
}
