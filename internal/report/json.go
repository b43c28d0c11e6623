package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// JSONFormat identifies the JSON report. A field may be added within a
// version; one that changes meaning or disappears makes a new version.
const JSONFormat = "mongobench.report/v1"

// HistogramEncoding says what the base64 strings of runs[].histograms
// hold, so a reader knows how to decode them without this code.
const HistogramEncoding = "gzip-compressed JSON of a phase's merged internal/results.Result (HdrHistograms per operation), " +
	"as stored in the ConfigMap named by status.results[].histograms"

// jsonReport is the JSON report: everything the other formats are made
// of, so numbers can be recomputed and histograms merged again later.
type jsonReport struct {
	Format    string `json:"format"`
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Sweep is the sweep's spec and status (sweeps only).
	Sweep *jsonSweep `json:"sweep,omitempty"`
	// Runs are the child runs (the run itself for a run's report).
	Runs              []jsonRun `json:"runs"`
	HistogramEncoding string    `json:"histogramEncoding"`
	// History is a gated run's history, per compared metric (a run's
	// report with a history baseline).
	History *History `json:"history,omitempty"`
	// Growth is each cell's growth in each Grow phase, as the Markdown
	// and HTML reports show it (studies with a Grow phase).
	Growth []jsonGrowth `json:"growth,omitempty"`
	// InvalidRuns are the runs that succeeded but are not valid (their
	// Valid condition is False): every aggregate leaves them out.
	InvalidRuns []jsonInvalidRun `json:"invalidRuns,omitempty"`
	// Warmups and Loaders are each cell's warm-ups and loaders' figures
	// per phase, as the Markdown and HTML reports show them (studies
	// whose runs have them); the runs' own are in their status.
	Warmups []jsonWarmup  `json:"warmups,omitempty"`
	Loaders []jsonLoaders `json:"loaders,omitempty"`
	// Disruptions are each cell's disruptions per phase, as the Markdown
	// and HTML reports show them (studies whose runs had disruptions).
	Disruptions []jsonDisruption `json:"disruptions,omitempty"`
}

// jsonInvalidRun is a run left out as invalid, with its Valid condition.
type jsonInvalidRun struct {
	Run        string `json:"run"`
	Cell       int32  `json:"cell"`
	CellName   string `json:"cellName"`
	Repetition int32  `json:"repetition"`
	Reason     string `json:"reason"`
	Message    string `json:"message,omitempty"`
}

// jsonWarmup is a cell's warm-up in a phase: the median of each figure
// across the cell's successful, valid repetitions that had one.
type jsonWarmup struct {
	Phase         string  `json:"phase"`
	Cell          int32   `json:"cell"`
	CellName      string  `json:"cellName"`
	Repetitions   int     `json:"repetitions"`
	Operations    float64 `json:"operations"`
	RuntimeMillis float64 `json:"runtimeMillis"`
	OpsPerSec     float64 `json:"opsPerSec"`
	P99Micros     float64 `json:"p99Micros"`
}

// jsonLoaders is what a cell's loaders reported in a phase across its
// successful, valid repetitions: the most loaders, the median of their
// connections (all loaders together), the longest connect time, the
// highest CPU use (% of cpuLimits) and throttling of any loader, and the
// widest start skew (absent with one loader).
type jsonLoaders struct {
	Phase               string   `json:"phase"`
	Cell                int32    `json:"cell"`
	CellName            string   `json:"cellName"`
	Repetitions         int      `json:"repetitions"`
	Loaders             int      `json:"loaders"`
	Connections         float64  `json:"connections"`
	MaxConnectMillis    int64    `json:"maxConnectMillis"`
	MaxCPUPercent       *float64 `json:"maxCpuPercent,omitempty"`
	CPULimits           []string `json:"cpuLimits,omitempty"`
	MaxThrottledPercent *float64 `json:"maxThrottledPercent,omitempty"`
	MaxStartSkewMillis  *int64   `json:"maxStartSkewMillis,omitempty"`
}

// jsonGrowth is a cell's growth in a Grow phase: per checkpoint the
// median of each figure across the cell's successful repetitions that
// reached it. The runs' own rows are in runs[].status.results[].growth,
// the full rows (every shard's sizes, each segment's and query's latency
// summary) in the histograms of runs[].histograms.
type jsonGrowth struct {
	Phase       string           `json:"phase"`
	Cell        int32            `json:"cell"`
	CellName    string           `json:"cellName"`
	Repetitions int              `json:"repetitions"`
	InsertMode  string           `json:"insertMode"`
	Checkpoints []jsonCheckpoint `json:"checkpoints"`
}

// jsonCheckpoint is a cell's checkpoint (latencies in µs, sizes in
// bytes; a figure no repetition reported is left out).
type jsonCheckpoint struct {
	Records         int64   `json:"records"`
	Repetitions     int     `json:"repetitions"`
	InsertsPerSec   float64 `json:"insertsPerSec"`
	InsertP50Micros float64 `json:"insertP50Micros"`
	InsertP99Micros float64 `json:"insertP99Micros"`
	InsertErrors    float64 `json:"insertErrors"`
	// ResumedRepetitions are the repetitions a loader resumed the phase
	// in during the segment.
	ResumedRepetitions []int32            `json:"resumedRepetitions,omitempty"`
	Queries            []jsonGrowthQuery  `json:"queries,omitempty"`
	Size               *float64           `json:"size,omitempty"`
	StorageSize        *float64           `json:"storageSize,omitempty"`
	TotalIndexSize     *float64           `json:"totalIndexSize,omitempty"`
	IndexSizes         map[string]float64 `json:"indexSizes,omitempty"`
	ShardCounts        map[string]float64 `json:"shardCounts,omitempty"`
}

type jsonGrowthQuery struct {
	Name              string  `json:"name"`
	OpsPerSec         float64 `json:"opsPerSec"`
	P50Micros         float64 `json:"p50Micros"`
	P99Micros         float64 `json:"p99Micros"`
	DocumentsPerQuery float64 `json:"documentsPerQuery"`
	Errors            float64 `json:"errors"`
}

// jsonGrowthOf is the study's growth for the JSON report.
func (s *Study) jsonGrowthOf() []jsonGrowth {
	var out []jsonGrowth
	orNil := func(v float64) *float64 {
		if math.IsNaN(v) {
			return nil
		}
		return &v
	}
	for _, gp := range s.growth {
		for _, c := range gp.Cells {
			jg := jsonGrowth{Phase: gp.Phase.Name, Cell: c.Cell.Index, CellName: c.Cell.Name, Repetitions: c.Repetitions,
				InsertMode: c.InsertMode, Checkpoints: []jsonCheckpoint{}}
			for _, r := range c.Rows {
				jc := jsonCheckpoint{Records: r.Records, Repetitions: r.Repetitions, InsertsPerSec: r.InsertsPerSec,
					InsertP50Micros: r.InsertP50, InsertP99Micros: r.InsertP99, InsertErrors: r.InsertErrors,
					ResumedRepetitions: r.Resumed, Size: orNil(r.Size), StorageSize: orNil(r.StorageSize),
					TotalIndexSize: orNil(r.TotalIndexSize), IndexSizes: r.IndexSizes, ShardCounts: r.ShardCounts}
				for _, q := range gp.Queries {
					if v, ok := r.Queries[q]; ok {
						jc.Queries = append(jc.Queries, jsonGrowthQuery{Name: q, OpsPerSec: v.OpsPerSec, P50Micros: v.P50, P99Micros: v.P99,
							DocumentsPerQuery: v.DocumentsPerQuery, Errors: v.Errors})
					}
				}
				jg.Checkpoints = append(jg.Checkpoints, jc)
			}
			out = append(out, jg)
		}
	}
	return out
}

type jsonSweep struct {
	Metadata metav1.ObjectMeta            `json:"metadata"`
	Spec     benchv1.BenchmarkSweepSpec   `json:"spec"`
	Status   benchv1.BenchmarkSweepStatus `json:"status"`
}

type jsonRun struct {
	Metadata metav1.ObjectMeta `json:"metadata"`
	// Cell and Repetition place the run in the sweep.
	Cell       *int32                     `json:"cell,omitempty"`
	CellName   string                     `json:"cellName,omitempty"`
	Repetition int32                      `json:"repetition,omitempty"`
	Spec       benchv1.BenchmarkRunSpec   `json:"spec"`
	Status     benchv1.BenchmarkRunStatus `json:"status"`
	// Histograms holds each phase's stored merged result by phase name
	// (base64 in JSON; see histogramEncoding).
	Histograms map[string][]byte `json:"histograms,omitempty"`
}

// JSON writes the study as one indented JSON document (format
// mongobench.report/v1): the sweep's spec and status, every child run's
// spec and status, each child phase's merged histograms as stored, and a
// gated run's history series (History), and each cell's growth in a Grow
// phase (the medians the other formats show; the runs' rows are in their
// status), the invalid runs with their Valid condition, and each cell's
// warm-ups, loaders' figures and disruptions as the other formats show
// them.
func JSON(w io.Writer, s *Study) error {
	rep := jsonReport{
		Format: JSONFormat, Kind: s.Kind, Namespace: s.Namespace, Name: s.Name,
		Runs: []jsonRun{}, HistogramEncoding: HistogramEncoding, History: s.History, Growth: s.jsonGrowthOf(),
		Disruptions: s.jsonDisruptionsOf(),
	}
	if s.Sweep != nil {
		rep.Sweep = &jsonSweep{Metadata: trimMeta(s.Sweep.ObjectMeta), Spec: s.Sweep.Spec, Status: s.Sweep.Status}
	}
	for _, r := range s.invalidRuns() {
		rep.InvalidRuns = append(rep.InvalidRuns, jsonInvalidRun{Run: r.Name, Cell: r.Cell.Index, CellName: r.Cell.Name,
			Repetition: r.Repetition, Reason: r.Reason, Message: r.Message})
	}
	for _, w := range s.warmups() {
		rep.Warmups = append(rep.Warmups, jsonWarmup{Phase: w.Phase, Cell: w.Cell.Index, CellName: w.Cell.Name, Repetitions: w.Repetitions,
			Operations: w.Operations, RuntimeMillis: w.RuntimeMillis, OpsPerSec: w.OpsPerSec, P99Micros: w.P99Micros})
	}
	for _, l := range s.loaderStats() {
		jl := jsonLoaders{Phase: l.Phase, Cell: l.Cell.Index, CellName: l.Cell.Name, Repetitions: l.Repetitions, Loaders: l.Loaders,
			Connections: l.Connections, MaxConnectMillis: l.ConnectMillis, CPULimits: l.CPULimits}
		if !math.IsNaN(l.MaxCPUPercent) {
			jl.MaxCPUPercent = ptrTo(l.MaxCPUPercent)
		}
		if !math.IsNaN(l.MaxThrottledPercent) {
			jl.MaxThrottledPercent = ptrTo(l.MaxThrottledPercent)
		}
		if l.MaxStartSkewMillis >= 0 {
			jl.MaxStartSkewMillis = ptrTo(l.MaxStartSkewMillis)
		}
		rep.Loaders = append(rep.Loaders, jl)
	}
	where := map[string]*CellRun{}
	cells := map[string]*Cell{}
	for ci := range s.Cells {
		for ri := range s.Cells[ci].Runs {
			where[s.Cells[ci].Runs[ri].Name] = &s.Cells[ci].Runs[ri]
			cells[s.Cells[ci].Runs[ri].Name] = &s.Cells[ci]
		}
	}
	for i := range s.Runs {
		r := &s.Runs[i]
		jr := jsonRun{Metadata: trimMeta(r.ObjectMeta), Spec: r.Spec, Status: r.Status, Histograms: s.Histograms[r.Name]}
		if cr := where[r.Name]; cr != nil && s.Kind == KindSweep {
			c := cells[r.Name]
			jr.Cell, jr.CellName, jr.Repetition = &c.Index, c.Name, cr.Repetition
		}
		rep.Runs = append(rep.Runs, jr)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rep); err != nil {
		return fmt.Errorf("write json: %w", err)
	}
	return nil
}

// trimMeta keeps the metadata that identifies an object and drops what
// only the API server needs (managed fields, resource versions).
func trimMeta(m metav1.ObjectMeta) metav1.ObjectMeta {
	out := metav1.ObjectMeta{
		Name: m.Name, Namespace: m.Namespace, UID: m.UID, Generation: m.Generation,
		CreationTimestamp: m.CreationTimestamp, Labels: m.Labels,
	}
	for k, v := range m.Annotations {
		// kubectl apply's copy of the spec repeats what the report has.
		if k == corev1.LastAppliedConfigAnnotation {
			continue
		}
		if out.Annotations == nil {
			out.Annotations = map[string]string{}
		}
		out.Annotations[k] = v
	}
	return out
}
