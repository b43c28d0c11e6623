package plugin

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/mongobench/mongobench/internal/contract"
)

// A loader's /metrics, read by top: what one scrape of one loader pod
// said (the metric names and labels of internal/contract), and the math
// that turns two scrapes into rates and a p99 over the time between them.

// scrape is one loader pod's exposition at one moment.
type scrape struct {
	pod string
	// at is when the scrape's answer arrived: rates are over the time
	// between two scrapes' at.
	at time.Time
	// loader and phase are the loader's MetricLabelLoader and
	// MetricLabelPhase ("" when the exposition had no loader metric yet).
	loader, phase string
	ops           map[string]*opScrape
	threads       float64
	planned       float64
	maxExecution  float64
	// observedAt is MetricLoaderObservedAt (Unix seconds), 0 when absent:
	// when the loader's counters last moved (once a second).
	observedAt float64
	// startTime is MetricLoaderStartTime (Unix seconds), 0 when absent:
	// the loader is still warming up or waiting at the start barrier.
	startTime float64
	measuring bool
	finished  bool
	// grow is a Grow phase's latest checkpoint; nil for a YCSB phase.
	grow *growScrape
	// servers is loader 0's server telemetry, by MetricLabelProcess.
	servers map[string]*serverScrape
}

// opScrape is one operation's counters in a scrape.
type opScrape struct {
	ok, errors float64
	// latency is the classic buckets of the operation's successful calls
	// (result ok), as YCSB's per-operation latencies are of successful
	// calls; nil when the exposition had none.
	latency buckets
}

// growScrape is a Grow phase loader's checkpoint gauges.
type growScrape struct {
	checkpoints, planned, records, insertRate float64
}

// serverScrape is loader 0's latest sample of one MongoDB process.
type serverScrape struct {
	connections    float64
	hasConnections bool
	dirtyRatio     float64
	hasDirty       bool
	// ops is MetricServerOperations by MetricLabelType.
	ops map[string]float64
}

// bucket is a classic histogram bucket: the count of observations less
// than or equal to upper (cumulative).
type bucket struct {
	upper, count float64
}

// buckets are a classic histogram's buckets by ascending upper bound, the
// last one +Inf.
type buckets []bucket

// metricsAccept asks the loader for the Prometheus text format: the
// classic buckets of a native histogram appear in it (the protobuf format
// would carry native buckets top has no use for), and expfmt parses it.
var metricsAccept = string(expfmt.NewFormat(expfmt.TypeTextPlain))

// parseScrape reads a text-format exposition.
func parseScrape(r io.Reader) (*scrape, error) {
	// Legacy validation: the contract's names are all legacy-valid, and
	// the text format (0.0.4) has no quoted UTF-8 names.
	p := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := p.TextToMetricFamilies(r)
	if err != nil {
		return nil, fmt.Errorf("parse the exposition: %w", err)
	}
	s := &scrape{ops: map[string]*opScrape{}, servers: map[string]*serverScrape{}}
	op := func(name string) *opScrape {
		if s.ops[name] == nil {
			s.ops[name] = &opScrape{}
		}
		return s.ops[name]
	}
	server := func(process string) *serverScrape {
		if s.servers[process] == nil {
			s.servers[process] = &serverScrape{ops: map[string]float64{}}
		}
		return s.servers[process]
	}
	grow := func() *growScrape {
		if s.grow == nil {
			s.grow = &growScrape{}
		}
		return s.grow
	}
	for name, fam := range fams {
		for _, m := range fam.GetMetric() {
			l := labelsOf(m)
			if s.loader == "" && l[contract.MetricLabelLoader] != "" {
				s.loader, s.phase = l[contract.MetricLabelLoader], l[contract.MetricLabelPhase]
			}
			v := valueOf(m)
			switch name {
			case contract.MetricLoaderOperations:
				o := op(l[contract.MetricLabelOperation])
				if l[contract.MetricLabelResult] == contract.ResultError {
					o.errors += v
				} else {
					o.ok += v
				}
			case contract.MetricLoaderLatency:
				if l[contract.MetricLabelResult] == contract.ResultOK {
					op(l[contract.MetricLabelOperation]).latency = bucketsOf(m.GetHistogram())
				}
			case contract.MetricLoaderThreads:
				s.threads = v
			case contract.MetricLoaderPlannedOperations:
				s.planned = v
			case contract.MetricLoaderMaxExecution:
				s.maxExecution = v
			case contract.MetricLoaderStartTime:
				s.startTime = v
			case contract.MetricLoaderObservedAt:
				s.observedAt = v
			case contract.MetricGrowCheckpoints:
				grow().checkpoints = v
			case contract.MetricGrowPlannedCheckpoints:
				grow().planned = v
			case contract.MetricGrowRecords:
				grow().records = v
			case contract.MetricGrowInsertRate:
				grow().insertRate = v
			case contract.MetricLoaderMeasuring:
				s.measuring = v > 0
			case contract.MetricLoaderFinished:
				s.finished = v > 0
			case contract.MetricServerConnections:
				sv := server(l[contract.MetricLabelProcess])
				sv.connections, sv.hasConnections = v, true
			case contract.MetricServerCacheDirty:
				sv := server(l[contract.MetricLabelProcess])
				sv.dirtyRatio, sv.hasDirty = v, true
			case contract.MetricServerOperations:
				server(l[contract.MetricLabelProcess]).ops[l[contract.MetricLabelType]] = v
			}
		}
	}
	return s, nil
}

func labelsOf(m *dto.Metric) map[string]string {
	l := make(map[string]string, len(m.GetLabel()))
	for _, p := range m.GetLabel() {
		l[p.GetName()] = p.GetValue()
	}
	return l
}

// valueOf is a counter's, gauge's or untyped sample's value.
func valueOf(m *dto.Metric) float64 {
	switch {
	case m.Counter != nil:
		return m.GetCounter().GetValue()
	case m.Gauge != nil:
		return m.GetGauge().GetValue()
	case m.Untyped != nil:
		return m.GetUntyped().GetValue()
	}
	return 0
}

// bucketsOf reads a histogram's classic buckets, ending with +Inf (whose
// count is the sample count; the text parser keeps a +Inf bucket line
// as a bucket, a protobuf exposition leaves it out). A histogram without
// classic buckets (native only) has none: nil.
func bucketsOf(h *dto.Histogram) buckets {
	if h == nil || len(h.GetBucket()) == 0 {
		return nil
	}
	out := make(buckets, 0, len(h.GetBucket())+1)
	for _, b := range h.GetBucket() {
		c := float64(b.GetCumulativeCount())
		if b.CumulativeCountFloat != nil {
			c = b.GetCumulativeCountFloat()
		}
		out = append(out, bucket{upper: b.GetUpperBound(), count: c})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].upper < out[j].upper })
	if !math.IsInf(out[len(out)-1].upper, +1) {
		total := float64(h.GetSampleCount())
		if h.SampleCountFloat != nil {
			total = h.GetSampleCountFloat()
		}
		out = append(out, bucket{upper: math.Inf(+1), count: total})
	}
	return out
}

// increase is how much a counter grew from prev to cur: cur-prev, or cur
// when it went down, as Prometheus' rate() reads a decrease (the process
// restarted and counts from zero; promql/functions.go,
// correctForCounterResets, adds the previous value back).
func increase(prev, cur float64) float64 {
	if cur < prev {
		return cur
	}
	return cur - prev
}

// rateOver is a counter's increase per second over d; false when d is not
// positive (no time passed, no rate).
func rateOver(prev, cur float64, d time.Duration) (float64, bool) {
	if d <= 0 {
		return 0, false
	}
	return increase(prev, cur) / d.Seconds(), true
}

// increaseBuckets is the observations between two scrapes of a histogram:
// each bucket's count in cur minus its count in prev, so the p99 it gives
// is the p99 of the calls made between the scrapes, not since the
// loader started. When a count went down the histogram was reset and cur
// holds only new observations: cur itself; so does a prev without
// buckets (the series appeared since, from zero). Different bucket
// layouts, or no buckets in cur, give false.
func increaseBuckets(prev, cur buckets) (buckets, bool) {
	switch {
	case len(cur) == 0:
		return nil, false
	case len(prev) == 0:
		return append(buckets(nil), cur...), true
	case len(prev) != len(cur):
		return nil, false
	}
	out := make(buckets, len(cur))
	for i := range cur {
		if cur[i].upper != prev[i].upper {
			return nil, false
		}
		if cur[i].count < prev[i].count {
			return append(buckets(nil), cur...), true
		}
		out[i] = bucket{upper: cur[i].upper, count: cur[i].count - prev[i].count}
	}
	return out, true
}

// addBuckets adds b's counts to a's (loaders' histograms of one
// operation, to a histogram of all of them); a nil a takes b's layout.
// Different layouts give false.
func addBuckets(a, b buckets) (buckets, bool) {
	if a == nil {
		return append(buckets(nil), b...), true
	}
	if len(a) != len(b) {
		return nil, false
	}
	for i := range a {
		if a[i].upper != b[i].upper {
			return nil, false
		}
		a[i].count += b[i].count
	}
	return a, true
}

// quantile estimates the q-quantile (0 to 1) of the observations in b as
// PromQL's histogram_quantile() does for classic buckets (Prometheus'
// promql/quantile.go, BucketQuantile): find the bucket where the rank q
// × count falls and interpolate linearly within it, from 0 in the first
// bucket; in the +Inf bucket, answer the highest finite bound. So the
// answer is only as fine as the buckets. false when b has no observations
// or no +Inf bucket. b's counts are cumulative and assumed monotonic, as
// the loader's exposition (one process's histogram) always is.
func quantile(q float64, b buckets) (float64, bool) {
	if len(b) < 2 || !math.IsInf(b[len(b)-1].upper, +1) {
		return 0, false
	}
	total := b[len(b)-1].count
	if total <= 0 {
		return 0, false
	}
	rank := q * total
	i := sort.Search(len(b)-1, func(i int) bool { return b[i].count >= rank })
	switch {
	case i == len(b)-1:
		return b[len(b)-2].upper, true
	case i == 0 && b[0].upper <= 0:
		return b[0].upper, true
	}
	start, count := 0.0, b[i].count
	if i > 0 {
		start = b[i-1].upper
		count -= b[i-1].count
		rank -= b[i-1].count
	}
	return start + (b[i].upper-start)*(rank/count), true
}

// loaderIndex orders loaders by their index label, numerically.
func loaderIndex(s *scrape) int {
	n, err := strconv.Atoi(s.loader)
	if err != nil {
		return math.MaxInt
	}
	return n
}
