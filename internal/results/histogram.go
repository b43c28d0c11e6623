package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram parameters. They are part of the format: the controller checks
// them when decoding so histograms with other settings are never merged.
const (
	// LowestMicros is the lowest trackable latency (µs).
	LowestMicros = 1
	// HighestMicros is the highest trackable latency: one hour. Larger
	// values are clamped (a driver call never legitimately lasts that long).
	HighestMicros = 3_600_000_000
	// SignificantDigits of the operation histograms, as in YCSB.
	SignificantDigits = 3
	// SeriesSignificantDigits of the per-interval (time series) histograms:
	// 2 digits (≤1% error) keep 120 points × ops small while still letting
	// the controller merge interval p99s of several loaders exactly at that
	// resolution.
	SeriesSignificantDigits = 2
)

// Histogram is a latency histogram in microseconds. Its JSON form is the
// standard HdrHistogram V2 compressed encoding in base64 ("HISTFAAA…"), so
// any HdrHistogram tool can read it. A nil *Histogram is an empty histogram.
type Histogram struct {
	h *hdrhistogram.Histogram
}

// NewHistogram returns an empty operation histogram (3 significant digits).
func NewHistogram() *Histogram {
	return &Histogram{h: hdrhistogram.New(LowestMicros, HighestMicros, SignificantDigits)}
}

// NewSeriesHistogram returns an empty time-series histogram (2 digits).
func NewSeriesHistogram() *Histogram {
	return &Histogram{h: hdrhistogram.New(LowestMicros, HighestMicros, SeriesSignificantDigits)}
}

// Record adds one latency. Values outside the trackable range are clamped
// so a sample is never lost. It does not allocate.
func (h *Histogram) Record(us int64) {
	if us < 0 {
		us = 0
	} else if us > HighestMicros {
		us = HighestMicros
	}
	// Cannot fail: the value is within range.
	_ = h.h.RecordValue(us)
}

// RecordN adds n samples of the same latency.
func (h *Histogram) RecordN(us, n int64) {
	if n <= 0 {
		return
	}
	if us < 0 {
		us = 0
	} else if us > HighestMicros {
		us = HighestMicros
	}
	_ = h.h.RecordValues(us, n)
}

// Merge adds every sample of o to h. Merging into a histogram of lower
// precision (a series histogram) is allowed; the result is what recording
// the same samples into h directly would have produced.
func (h *Histogram) Merge(o *Histogram) {
	if o == nil || o.h == nil {
		return
	}
	h.h.Merge(o.h)
}

// Bucket is a range of values HdrHistogram does not tell apart, [From, To]
// µs, and how many samples fell in it.
type Bucket struct {
	From, To, Count int64
}

// Buckets lists the buckets that hold samples, in increasing order: the
// histogram's whole content at its precision (3 significant digits: To is
// at most 0.1% above From). It allocates; report and scrape time, not a hot
// path.
func (h *Histogram) Buckets() []Bucket {
	if h.Count() == 0 {
		return nil
	}
	var out []Bucket
	for _, b := range h.h.Distribution() {
		if b.Count > 0 {
			out = append(out, Bucket{From: b.From, To: b.To, Count: b.Count})
		}
	}
	return out
}

// Reset removes all samples.
func (h *Histogram) Reset() { h.h.Reset() }

// Count is the number of samples.
func (h *Histogram) Count() int64 {
	if h == nil || h.h == nil {
		return 0
	}
	return h.h.TotalCount()
}

// Percentile returns the value at percentile p (0..100) with Java
// HdrHistogram's rule, the number YCSB prints: the highest value equivalent
// to the sample of rank max(1, ceil(p/100 · count)). (hdrhistogram-go rounds
// the rank to nearest instead, so it can report 0 for a low percentile of a
// small histogram.) It walks the buckets: report time, not a hot path.
func (h *Histogram) Percentile(p float64) int64 {
	total := h.Count()
	if total == 0 {
		return 0
	}
	p = math.Min(math.Max(p, 0), 100)
	rank := int64(math.Ceil(p / 100 * float64(total)))
	rank = max(rank, 1)
	var seen int64
	var last int64
	for _, b := range h.h.Distribution() {
		if b.Count == 0 {
			continue
		}
		seen += b.Count
		last = b.To
		if seen >= rank {
			return b.To
		}
	}
	return last
}

// Stats is a summary of a histogram, computed the way YCSB's HdrHistogram
// measurement computes it.
type Stats struct {
	Count int64
	Min   int64
	Max   int64
	Mean  float64
	P50   int64
	P90   int64
	P95   int64
	P99   int64
	P999  int64
	P9999 int64
}

// Stats summarises the histogram. It walks the counts array, so it belongs
// at report time, not on a hot path.
func (h *Histogram) Stats() Stats {
	if h.Count() == 0 {
		return Stats{}
	}
	return Stats{
		Count: h.h.TotalCount(),
		Min:   h.h.Min(),
		Max:   h.h.Max(),
		Mean:  h.h.Mean(),
		P50:   h.Percentile(50),
		P90:   h.Percentile(90),
		P95:   h.Percentile(95),
		P99:   h.Percentile(99),
		P999:  h.Percentile(99.9),
		P9999: h.Percentile(99.99),
	}
}

// SignificantDigits reports the histogram's precision.
func (h *Histogram) SignificantDigits() int64 { return h.h.SignificantFigures() }

// Clone returns an independent copy.
func (h *Histogram) Clone() *Histogram {
	c := &Histogram{h: hdrhistogram.New(LowestMicros, HighestMicros, int(h.h.SignificantFigures()))}
	c.h.Merge(h.h)
	return c
}

// Equal reports whether both histograms hold the same samples at the same
// precision.
func (h *Histogram) Equal(o *Histogram) bool {
	if h.Count() == 0 || o.Count() == 0 {
		return h.Count() == o.Count()
	}
	return h.h.Equals(o.h)
}

// MarshalJSON encodes the histogram as HdrHistogram V2 compressed base64.
func (h *Histogram) MarshalJSON() ([]byte, error) {
	b, err := h.h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return nil, fmt.Errorf("encode histogram: %w", err)
	}
	out, err := json.Marshal(string(b))
	if err != nil {
		return nil, fmt.Errorf("encode histogram: %w", err)
	}
	return out, nil
}

// UnmarshalJSON decodes HdrHistogram V2 compressed base64 and checks that
// the histogram uses this format's range and one of its precisions.
func (h *Histogram) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("histogram must be a base64 string: %w", err)
	}
	d, err := decodeHdr(bytes.TrimSpace([]byte(s)))
	if err != nil {
		return fmt.Errorf("decode histogram: %w", err)
	}
	if d.LowestTrackableValue() != LowestMicros || d.HighestTrackableValue() != HighestMicros {
		return fmt.Errorf("histogram range [%d, %d] µs, want [%d, %d]", d.LowestTrackableValue(), d.HighestTrackableValue(), LowestMicros, HighestMicros)
	}
	if sf := d.SignificantFigures(); sf != SignificantDigits && sf != SeriesSignificantDigits {
		return fmt.Errorf("histogram has %d significant digits, want %d or %d", sf, SignificantDigits, SeriesSignificantDigits)
	}
	h.h = d
	return nil
}

// decodeHdr wraps hdrhistogram.Decode, which indexes into its input without
// checking lengths: a truncated or corrupt result must become an error the
// controller can report, never a panic in the manager.
func decodeHdr(b []byte) (h *hdrhistogram.Histogram, err error) {
	if len(b) < 12 {
		return nil, fmt.Errorf("encoded histogram too short (%d bytes)", len(b))
	}
	defer func() {
		if r := recover(); r != nil {
			h, err = nil, fmt.Errorf("corrupt histogram: %v", r)
		}
	}()
	h, err = hdrhistogram.Decode(b)
	if err != nil {
		return nil, fmt.Errorf("hdrhistogram: %w", err)
	}
	return h, nil
}
