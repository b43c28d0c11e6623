package ycsb

import (
	"math/bits"
	"slices"
	"sync"
	"time"

	"github.com/mongobench/mongobench/internal/results"
)

// Measurements around disruptions (issue 27; results.Disruption is the
// format and its doc comments the definitions). The engine knows nothing of
// what a disruption does: it is an instant, the measured window's start plus
// At, around which every loader measures; the loader acts.
//
// How it is measured, and what it costs:
//
//   - Without disruptions a thread's ThreadState.dis is nil: the hot path
//     pays one nil check per operation, nothing else.
//   - With disruptions, a thread compares each operation's end with the
//     current stretch it watches ([instant - 10 s, instant + 30 s), merged
//     over the disruptions): outside, two time comparisons. Inside, it
//     appends a 24-byte sample (start, end, operation, outcome, error
//     label) to a buffer of its own, under a mutex of its own that only
//     the collector takes, once a second, to swap the buffer out.
//   - The collector's goroutine bins the samples: the 100 ms series on
//     the instant's grid by each operation's end (exact, unlike draining
//     the recorders more often, whose timer would blur the boundaries, and
//     without the HdrHistogram resets, 188 KB each, such drains cost), the
//     errors by label, the retries, and the first successes. A series
//     point keeps its latencies as a sparse map of series-histogram
//     buckets (quantize), not as a 26 KB histogram: a disruption's 401
//     points cost what their distinct latencies cost; the histograms are
//     built once, in the result.
//
// Memory: per thread, one second of samples in the stretch (24 B per
// operation, reused); per disruption, 401 points and, per kind (reads,
// writes), a millisecond histogram of ends over 30 s (120 KB) and at most
// maxCandidates candidate successes.
const (
	disruptionInterval = results.DisruptionIntervalMillis * time.Millisecond
	disruptionBefore   = results.DisruptionBeforeMillis * time.Millisecond
	disruptionAfter    = results.DisruptionAfterMillis * time.Millisecond
	// maxCandidates bounds the successes kept per kind while the onset of
	// a disruption is not known (see kindAgg).
	maxCandidates = 1 << 16
)

// DisruptionSpec is one disruption the engine measures around: its index
// among the phase's, its action (reported as is) and its instant, from the
// measured window's start.
type DisruptionSpec struct {
	Index  int
	Action string
	At     time.Duration
	// Partial: the disruption hits part of what the loader reaches (one
	// shard, or the config server, behind mongos), so that operations
	// that go elsewhere go on succeeding. A kind's unavailability then
	// ends with the first success that started after both the last
	// operation of the kind the disruption visibly hit (failed or
	// retried) and the recovery RunOptions.DisruptionRecovered reports
	// (see kindAgg).
	Partial bool
}

// CallDetailer is implemented by a DB that can say more of its calls than
// a Status, for the measurements around disruptions. The engine asks only
// for calls that end near a disruption, right after the call, on the
// thread's goroutine.
type CallDetailer interface {
	// FailureLabel labels the error of the thread's last call that
	// returned StatusError: the server's code name, or NetworkError,
	// Timeout, ServerSelectionTimeout, Other.
	FailureLabel() string
	// FailedAttempts is a running count of the thread's command attempts
	// that failed, the first attempts of retried calls among them.
	FailedAttempts() int64
}

// sample is one operation in a disruption's stretch: its start and end in
// nanoseconds from the measured window's start.
type sample struct {
	start, end int64
	op         Op
	flags      uint8
	label      uint16 // labels index, failures only
}

const (
	sampleFailed    = 1 << iota // status not OK
	sampleError                 // status ERROR (a failure the DB labels)
	sampleRetried               // the driver sent it more than once
	sampleCall                  // a DB call (not READ-MODIFY-WRITE, CLEANUP)
	sampleBatchedOK             // status BATCHED_OK: no write reached the server
)

// stretch is [from, to) in nanoseconds from the window's start.
type stretch struct{ from, to int64 }

// disruptionSet is a run's disruptions: the threads' buffers and the
// aggregates, which only the collector's goroutine touches.
type disruptionSet struct {
	specs     []DisruptionSpec
	stretches []stretch
	threads   []*threadDisruptions
	aggs      []*disruptionAgg

	labelsMu sync.Mutex
	labels   []string // index 0: none
	labelIdx map[string]uint16

	spare []sample // the collector's buffer, swapped with a thread's
}

func newDisruptionSet(specs []DisruptionSpec) *disruptionSet {
	s := &disruptionSet{specs: specs, labels: []string{""}, labelIdx: map[string]uint16{}}
	for _, d := range specs {
		a := newDisruptionAgg(d)
		s.aggs = append(s.aggs, a)
		s.stretches = append(s.stretches, stretch{a.seriesStart, a.instant + int64(disruptionAfter)})
	}
	slices.SortFunc(s.stretches, func(a, b stretch) int { return int(min(max(a.from-b.from, -1), 1)) })
	merged := s.stretches[:0]
	for _, st := range s.stretches {
		if n := len(merged); n > 0 && st.from <= merged[n-1].to {
			merged[n-1].to = max(merged[n-1].to, st.to)
			continue
		}
		merged = append(merged, st)
	}
	s.stretches = merged
	return s
}

// label returns the index of a failure's label, adding it. Failures only:
// the mutex is never taken on a success.
func (s *disruptionSet) label(l string) uint16 {
	s.labelsMu.Lock()
	defer s.labelsMu.Unlock()
	if i, ok := s.labelIdx[l]; ok {
		return i
	}
	if len(s.labels) == 1<<16-1 {
		return s.label1("Other")
	}
	s.labels = append(s.labels, l)
	i := uint16(len(s.labels) - 1)
	s.labelIdx[l] = i
	return i
}

func (s *disruptionSet) label1(l string) uint16 {
	if i, ok := s.labelIdx[l]; ok {
		return i
	}
	return 0
}

func (s *disruptionSet) labelName(i uint16) string {
	s.labelsMu.Lock()
	defer s.labelsMu.Unlock()
	return s.labels[i]
}

// newThread returns the tracker of one thread, whose calls go to db.
func (s *disruptionSet) newThread(db DB) *threadDisruptions {
	t := &threadDisruptions{set: s}
	t.db, _ = db.(CallDetailer)
	s.threads = append(s.threads, t)
	return t
}

// drain moves every thread's samples into the aggregates. Collector only.
func (s *disruptionSet) drain() {
	for _, t := range s.threads {
		t.mu.Lock()
		buf := t.buf
		t.buf = s.spare[:0]
		t.mu.Unlock()
		for i := range buf {
			for _, a := range s.aggs {
				a.add(s, &buf[i])
			}
		}
		s.spare = buf
	}
}

// results returns what was measured, for a window that started at start
// and lasted window. Collector's goroutine, after the last drain.
func (s *disruptionSet) results(start time.Time, window time.Duration, loader int, opts *RunOptions) []results.Disruption {
	out := make([]results.Disruption, 0, len(s.aggs))
	for _, a := range s.aggs {
		instant := start.Add(a.spec.At)
		switch {
		case a.spec.At >= window:
			// Not reached: nothing happened to wait for or ask about.
		case opts.DisruptionStart != nil:
			if t, ok := opts.DisruptionStart(a.spec, instant); ok && t.After(instant) {
				a.origin = min(int64(t.Sub(start)), a.instant+int64(disruptionAfter))
			}
		}
		switch {
		case a.spec.At >= window:
		case a.spec.Partial && opts.DisruptionRecovered != nil:
			if t, ok := opts.DisruptionRecovered(a.spec, instant); ok {
				a.recovered = int64(t.Sub(start))
			}
		case !a.spec.Partial && opts.DisruptionOnset != nil:
			if t, ok := opts.DisruptionOnset(a.spec, instant); ok {
				a.seen(int64(t.Sub(start)))
			}
		}
		out = append(out, a.result(s, start, int64(window), loader))
	}
	slices.SortFunc(out, func(a, b results.Disruption) int { return a.Index - b.Index })
	return out
}

// threadDisruptions is one thread's side: the stretch it watches and its
// samples' buffer.
type threadDisruptions struct {
	set *disruptionSet
	db  CallDetailer // nil: the DB tells nothing more
	// base is the measured window's start; from and to the stretch
	// watched (absolute, so the check is two comparisons of the end the
	// engine already read); next the following stretch's index.
	base     time.Time
	from, to time.Time
	next     int
	// lastFailed is db's FailedAttempts after the thread's previous call.
	lastFailed int64

	mu  sync.Mutex
	buf []sample
	_   [64]byte // off the neighbouring threads' cache lines
}

// begin starts watching, once the measured window started at base.
func (t *threadDisruptions) begin(base time.Time) {
	t.base = base
	t.next = 0
	t.advance()
	if t.db != nil {
		t.lastFailed = t.db.FailedAttempts()
	}
}

// advance moves to the next stretch, or past the last one.
func (t *threadDisruptions) advance() {
	if t.next >= len(t.set.stretches) {
		// Past the last stretch: nothing ends before from again.
		t.from = t.base.Add(1<<63 - 1)
		t.to = t.from
		return
	}
	st := t.set.stretches[t.next]
	t.next++
	t.from, t.to = t.base.Add(time.Duration(st.from)), t.base.Add(time.Duration(st.to))
}

// record notes one operation that ran from start to end with status st.
func (t *threadDisruptions) record(op Op, st Status, start, end time.Time) {
	if end.Before(t.from) {
		return
	}
	for !end.Before(t.to) {
		t.advance()
		if end.Before(t.from) {
			return
		}
	}
	s := sample{start: int64(start.Sub(t.base)), end: int64(end.Sub(t.base)), op: op}
	switch {
	case st == StatusBatchedOK:
		s.flags |= sampleBatchedOK
	case !st.IsOK():
		s.flags |= sampleFailed
		if st == StatusError {
			s.flags |= sampleError
		}
	}
	if isCall(op) {
		s.flags |= sampleCall
		if t.db != nil {
			// Failed attempts since the previous call: this call's
			// (every call in the stretch comes here, so the difference
			// is exact once past the stretch's first call). A call
			// that succeeded after a failed attempt, or failed after
			// two, was retried.
			fa := t.db.FailedAttempts()
			d := fa - t.lastFailed
			t.lastFailed = fa
			if (st.IsOK() && d >= 1) || d >= 2 {
				s.flags |= sampleRetried
			}
		}
		if st == StatusError && t.db != nil {
			s.label = t.set.label(t.db.FailureLabel())
		}
	}
	if s.flags&sampleFailed != 0 && s.label == 0 {
		s.label = t.set.label(st.String())
	}
	t.mu.Lock()
	t.buf = append(t.buf, s)
	t.mu.Unlock()
}

// isCall reports whether op is one DB call (not a composite or the flush).
func isCall(op Op) bool {
	switch op {
	case OpRead, OpScan, OpUpdate, OpInsert, OpDelete:
		return true
	}
	return false
}

// Kinds of operation whose unavailability is measured.
const (
	kindWrite = iota
	kindRead
	numAvailKinds
)

// availKind is op's kind for unavailability, or -1.
func availKind(op Op) int {
	switch op {
	case OpInsert, OpUpdate, OpDelete:
		return kindWrite
	case OpRead, OpScan:
		return kindRead
	}
	return -1
}

// disruptionAgg is one disruption's aggregates (collector only).
type disruptionAgg struct {
	spec DisruptionSpec
	// instant and seriesStart in nanoseconds from the window's start;
	// seriesStart is on the instant's 100 ms grid, at most 10 s before
	// it and not before the window.
	instant, seriesStart int64
	points               []aggPoint

	errors             map[uint16]int64
	retried, retriedOK int64
	kinds              [numAvailKinds]kindAgg
	// recovered (Partial only) is when the loader saw the hit replica
	// set recover (RunOptions.DisruptionRecovered), in nanoseconds from
	// the window's start; -1: not known.
	recovered int64
	// origin is what the times are measured from: the instant, or when
	// the disruption began if later (RunOptions.DisruptionStart).
	origin int64
}

type aggPoint struct {
	ops [numOps]aggOp
}

type aggOp struct {
	count, failed int64
	// latency: series-histogram buckets (quantize) to counts.
	latency map[int64]int64
}

// kindAgg finds a kind's first success after a disruption.
//
// The definition (results.DisruptionLoader) is the end of the first
// successful operation that started at or after the instant. Taken
// literally it is defeated by every operation that starts in the
// moment between the instant and the disruption reaching the server
// (the command's own trip, a clock's skew between loaders): such an
// operation succeeds, and the unavailability reads as one operation's
// latency. So the onset is the end of the first operation of the kind
// that the disruption visibly hit (failed with an error, or retried by
// the driver) after the instant: its answer left the server after the
// disruption, so an operation started after it cannot have passed
// before. Or, earlier, when the loader saw the disruption otherwise
// (RunOptions.DisruptionOnset: the driver's monitor learnt the primary
// was gone; operations started after that wait for a new one rather
// than fail, so they show no error). The first success counted is the first that started at or
// after the instant and at or after the onset; without an onset (the
// disruption hit nothing of that kind) it is the literal one.
//
// A Partial disruption (one shard behind mongos) hits only the operations
// that go to that shard: the others succeed throughout, and the first
// success after the onset says nothing of the shard. Its end is the first
// success that started after the end of the last operation of the kind
// the disruption visibly hit (lastBad) and after the loader saw the
// shard's replica set recover (disruptionAgg.recovered: a primary elected
// after the instant, by the loader's own monitor of that set), whichever
// is later; operations that only stalled while the shard had no primary
// and then succeeded are covered by the latter. Successes are kept by the
// millisecond of their start (okByStart), so that end is exact to the
// millisecond however many operations the 30 s hold.
type kindAgg struct {
	onset   int64 // -1: none yet
	lastBad int64 // max end of a failed or retried operation; -1: none
	firstOK int64 // min end of a success started ≥ instant; -1: none
	// okByStart (Partial only): per millisecond of start after the
	// instant, the earliest end of a success started then, in
	// microseconds after the instant plus one (0: none).
	okByStart []int32
	// cands are successes started ≥ instant, kept until the onset is
	// known (a later drain may bring an earlier one; bounded).
	cands []stretch // {start, end}
	// ends counts the operations started ≥ instant by the millisecond of
	// their end after the instant (the counts Writes and Reads).
	ends []int32
}

func newDisruptionAgg(d DisruptionSpec) *disruptionAgg {
	a := &disruptionAgg{spec: d, instant: int64(d.At), errors: map[uint16]int64{}}
	before := min(d.At, disruptionBefore)
	before -= before % disruptionInterval // the first grid line in the window
	a.seriesStart = a.instant - int64(before)
	a.points = make([]aggPoint, (before+disruptionAfter)/disruptionInterval)
	a.recovered = -1
	a.origin = a.instant
	for k := range a.kinds {
		a.kinds[k] = kindAgg{onset: -1, lastBad: -1, firstOK: -1}
		if d.Partial || d.Action == "Pause" {
			// Exact whatever the rate: a Partial end comes late, and a
			// Pause's onset seconds after the instant, past what the
			// bounded candidates would hold.
			a.kinds[k].okByStart = make([]int32, disruptionAfter/time.Millisecond)
		}
	}
	return a
}

func (a *disruptionAgg) add(set *disruptionSet, s *sample) {
	after := a.instant + int64(disruptionAfter)
	if s.end < a.seriesStart || s.end >= after {
		return
	}
	p := &a.points[(s.end-a.seriesStart)/int64(disruptionInterval)].ops[s.op]
	p.count++
	if s.flags&sampleFailed != 0 {
		p.failed++
	} else {
		if p.latency == nil {
			p.latency = map[int64]int64{}
		}
		p.latency[quantize((s.end-s.start)/1000)]++
	}
	if s.end < a.instant {
		return
	}
	if s.flags&sampleFailed != 0 && s.flags&sampleCall != 0 { // a composite's failure is its calls'
		a.errors[s.label]++
	}
	if s.flags&sampleRetried != 0 {
		a.retried++
		if s.flags&sampleFailed == 0 {
			a.retriedOK++
		}
	}
	k := availKind(s.op)
	if k < 0 {
		return
	}
	ka := &a.kinds[k]
	if s.flags&(sampleError|sampleRetried) != 0 {
		if ka.onset < 0 || s.end < ka.onset {
			ka.onset = s.end
		}
		ka.lastBad = max(ka.lastBad, s.end)
	}
	if s.start < a.instant {
		return
	}
	if ka.ends == nil {
		ka.ends = make([]int32, disruptionAfter/time.Millisecond)
	}
	ka.ends[(s.end-a.instant)/int64(time.Millisecond)]++
	if s.flags&(sampleFailed|sampleBatchedOK) != 0 {
		return
	}
	if ka.firstOK < 0 || s.end < ka.firstOK {
		ka.firstOK = s.end
	}
	if ka.okByStart != nil {
		// s.end < instant + 30 s (above), so both fit.
		b := (s.start - a.instant) / int64(time.Millisecond)
		us := int32((s.end-a.instant)/int64(time.Microsecond)) + 1
		if old := ka.okByStart[b]; old == 0 || us < old {
			ka.okByStart[b] = us
		}
		return
	}
	if len(ka.cands) < maxCandidates {
		ka.cands = append(ka.cands, stretch{s.start, s.end})
	}
	_ = set
}

// seen sets the onset of both kinds no later than at (nanoseconds from
// the window's start): when the loader saw the disruption by other means
// (RunOptions.DisruptionOnset).
func (a *disruptionAgg) seen(at int64) {
	if at < a.instant || at >= a.instant+int64(disruptionAfter) {
		return
	}
	for k := range a.kinds {
		if ka := &a.kinds[k]; ka.onset < 0 || at < ka.onset {
			ka.onset = at
		}
	}
}

// first returns the end of the kind's first success (see kindAgg), -1
// when there was none; recovered and instant are its disruption's
// (Partial only).
func (ka *kindAgg) first(partial bool, recovered, instant int64) int64 {
	if ka.okByStart != nil {
		after := ka.onset
		if partial {
			after = max(ka.lastBad, recovered)
		}
		if after < 0 {
			return ka.firstOK
		}
		// The first whole millisecond of starts at or after it.
		b := max((after-instant+int64(time.Millisecond)-1)/int64(time.Millisecond), 0)
		best := int32(0)
		for ; b < int64(len(ka.okByStart)); b++ {
			if us := ka.okByStart[b]; us != 0 && (best == 0 || us < best) {
				best = us
			}
		}
		if best == 0 {
			return -1
		}
		return instant + int64(best-1)*int64(time.Microsecond)
	}
	if ka.onset < 0 {
		return ka.firstOK
	}
	best := int64(-1)
	for _, c := range ka.cands {
		if c.from >= ka.onset && (best < 0 || c.to < best) {
			best = c.to
		}
	}
	return best
}

// count is the number of operations started ≥ instant that ended by the
// millisecond of end (all of them when end < 0).
func (ka *kindAgg) count(end int64, instant int64) int64 {
	last := len(ka.ends) - 1
	if end >= 0 {
		last = min(int((end-instant)/int64(time.Millisecond)), last)
	}
	var n int64
	for i := 0; i <= last && i < len(ka.ends); i++ {
		n += int64(ka.ends[i])
	}
	return n
}

func (a *disruptionAgg) result(set *disruptionSet, start time.Time, window int64, loader int) results.Disruption {
	d := results.Disruption{
		Index:             a.spec.Index,
		Action:            a.spec.Action,
		AtMillis:          a.spec.At.Milliseconds(),
		Instant:           start.Add(a.spec.At),
		SeriesStartMillis: (a.seriesStart - a.instant) / int64(time.Millisecond),
		Series:            results.Series{IntervalMillis: results.DisruptionIntervalMillis},
		Retried:           a.retried,
		RetriedOK:         a.retriedOK,
	}
	for l, n := range a.errors {
		if d.Errors == nil {
			d.Errors = map[string]int64{}
		}
		d.Errors[set.labelName(l)] += n
	}
	dl := results.DisruptionLoader{Index: loader}
	for k := range a.kinds {
		ka := &a.kinds[k]
		end := ka.first(a.spec.Partial, a.recovered, a.instant)
		n := ka.count(end, a.instant)
		var micros *int64
		if end >= 0 {
			us := max(end-a.origin, 0) / int64(time.Microsecond)
			micros = &us
		}
		if k == kindWrite {
			dl.WriteUnavailableMicros, dl.Writes = micros, n
		} else {
			dl.ReadUnavailableMicros, dl.Reads = micros, n
		}
	}
	d.Loaders = []results.DisruptionLoader{dl}
	// Points up to the window's end, the last one clipped.
	for i := range a.points {
		from := a.seriesStart + int64(i)*int64(disruptionInterval)
		if from >= window {
			break
		}
		p := results.Point{Millis: (min(from+int64(disruptionInterval), window) - from) / int64(time.Millisecond)}
		if p.Millis <= 0 {
			break
		}
		for op := range numOps {
			o := &a.points[i].ops[op]
			if o.count == 0 {
				continue
			}
			po := results.PointOp{Name: op.String(), Count: o.count, Failed: o.failed}
			if len(o.latency) > 0 {
				po.Latency = results.NewSeriesHistogram()
				for v, n := range o.latency {
					po.Latency.RecordN(v, n)
				}
			}
			p.Ops = append(p.Ops, po)
		}
		d.Series.Points = append(d.Series.Points, p)
	}
	return d
}

// quantize maps a latency (µs) to the lowest value of its bucket in a
// series histogram (results.SeriesSignificantDigits = 2 over [1 µs, …]:
// HdrHistogram's sub-buckets of 256 values, 128 per power of two above;
// hdrhistogram-go v1.1.2 getBucketIndex/getSubBucketIdx), so that the
// sparse map of a point records exactly what the histogram would.
// TestQuantizeMatchesSeriesHistogram checks it against the histogram.
func quantize(us int64) int64 {
	if us < 0 {
		us = 0
	}
	if us > results.HighestMicros {
		us = results.HighestMicros
	}
	shift := max(bits.Len64(uint64(us)|255)-8, 0)
	return us >> shift << shift
}
