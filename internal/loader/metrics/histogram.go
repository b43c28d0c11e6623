package metrics

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/mongobench/mongobench/internal/results"
)

// nativeSchema is the native histograms' resolution: schema 3 has 8
// buckets per power of two, each about 9% wider than the last (client_golang's
// NativeHistogramBucketFactor 1.1 picks the same). Latencies from 1 µs to
// the hour results.Histogram tracks span at most 32 powers of two: at most
// 256 buckets, a few dozen in practice.
const nativeSchema = 3

// nativeBounds are the fractions (of math.Frexp) at which schema 3's
// buckets end within a power of two: 2^(j/8 - 1), as client_golang's
// nativeHistogramBounds[3] (prometheus/histogram.go). A value v = frac ×
// 2^exp falls in bucket SearchFloat64s(nativeBounds, frac) + (exp-1)×8, the
// bucket (2^((i-1)/8), 2^(i/8)] of Prometheus' native histograms.
var nativeBounds = func() []float64 {
	b := make([]float64, 1<<nativeSchema)
	for j := range b {
		b[j] = math.Exp2(float64(j)/float64(len(b)) - 1)
	}
	return b
}()

// nativeKey is the native bucket of a positive value.
func nativeKey(v float64) int {
	frac, exp := math.Frexp(v)
	return sort.SearchFloat64s(nativeBounds, frac) + (exp-1)*len(nativeBounds)
}

// classicBounds are the classic buckets' upper bounds in seconds, for
// scrapers without native histograms (and the text format, which has no
// native buckets): 100 µs to 10 s, 1-2.5-5 steps. Each is a whole number of
// microseconds, the unit the HdrHistograms count in.
var classicBounds = []float64{
	0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
}

// microsPerSecond converts the HdrHistograms' microseconds (a division:
// 800/1e6 is 0.0008, 800*1e-6 is not quite).
const microsPerSecond = 1e6

// histogramMetric converts a cumulative latency histogram (µs) into one
// Prometheus histogram with both native and classic buckets, as
// client_golang's own histogram exposes when both are configured. Each
// HdrHistogram bucket [From, To] is placed by its lowest equivalent value
// and adds its median equivalent value to the sum. So the bucket that
// holds a classic bound counts at that bound: a latency of exactly a
// bound counts as at most that bound (le), as Prometheus' own histogram
// counts it, and one less than a bucket's width above it may too. That
// width is at most 1% of the value with the exporter's 2 significant
// digits, well inside a native bucket's 9%. Below 256 µs (2 digits) or
// 2048 µs (3 digits) a bucket holds one value and the conversion is
// exact.
func histogramMetric(desc *prometheus.Desc, h *results.Histogram, created time.Time, labelValues ...string) (prometheus.Metric, error) {
	var (
		count, zero uint64
		sum         float64
		native      = map[int]int64{}
		classic     = make(map[float64]uint64, len(classicBounds))
	)
	for _, le := range classicBounds {
		classic[le] = 0
	}
	for _, b := range h.Buckets() {
		n := uint64(b.Count)
		count += n
		sum += float64(b.From+b.To) / 2 * float64(b.Count) / microsPerSecond
		v := float64(b.From) / microsPerSecond
		if v <= 0 {
			zero += n
		} else {
			native[nativeKey(v)] += b.Count
		}
		// Classic buckets are cumulative: every bound at or above v.
		for _, le := range classicBounds[sort.SearchFloat64s(classicBounds, v):] {
			classic[le] += n
		}
	}
	nm, err := prometheus.NewConstNativeHistogram(desc, count, sum, native, nil, zero, nativeSchema,
		prometheus.DefNativeHistogramZeroThreshold, created, labelValues...)
	if err != nil {
		return nil, fmt.Errorf("native histogram: %w", err)
	}
	cm, err := prometheus.NewConstHistogramWithCreatedTimestamp(desc, count, sum, classic, created, labelValues...)
	if err != nil {
		return nil, fmt.Errorf("classic histogram: %w", err)
	}
	return &bothHistogram{native: nm, classic: cm}, nil
}

// bothHistogram is a histogram exposed with native and classic buckets in
// one dto.Histogram: client_golang builds each kind as a const metric, and
// a histogram configured with both (HistogramOpts.Buckets and
// NativeHistogramBucketFactor) writes both into the same message
// (histogram.go, histogram.Write), which is what Prometheus' scrape of a
// native histogram with a classic fallback expects.
type bothHistogram struct {
	native, classic prometheus.Metric
}

func (b *bothHistogram) Desc() *prometheus.Desc { return b.native.Desc() }

func (b *bothHistogram) Write(out *dto.Metric) error {
	var n, c dto.Metric
	if err := b.native.Write(&n); err != nil {
		return fmt.Errorf("native buckets: %w", err)
	}
	if err := b.classic.Write(&c); err != nil {
		return fmt.Errorf("classic buckets: %w", err)
	}
	nh := n.Histogram
	out.Label = n.Label
	out.Histogram = &dto.Histogram{
		SampleCount: nh.SampleCount, SampleSum: nh.SampleSum, CreatedTimestamp: nh.CreatedTimestamp,
		Bucket: c.Histogram.Bucket,
		Schema: nh.Schema, ZeroThreshold: nh.ZeroThreshold, ZeroCount: nh.ZeroCount,
		PositiveSpan: nh.PositiveSpan, PositiveDelta: nh.PositiveDelta,
		NegativeSpan: nh.NegativeSpan, NegativeDelta: nh.NegativeDelta,
	}
	return nil
}
