package ycsb

// Parallel loaders. Several loader processes ("loader i of n", properties
// loader.index and loader.count) may run the same phase against one
// database.
//
// Load phase: the records [insertstart, insertstart+insertcount) are split
// into n contiguous, disjoint ranges whose sizes differ by at most one
// (loadShare); loader i inserts exactly its range.
//
// Run phase: YCSB starts every client's insert sequence at recordcount, so
// parallel clients insert the same keys (YCSB issue #1139). Here loader i
// inserts the strided keys recordcount+i, recordcount+i+n, recordcount+i+2n,
// ...: the sequences of different loaders are disjoint by construction and
// need no coordination. Each loader acknowledges inserts in its own index
// space j = 0, 1, 2, ... (key = recordcount + i + j·n), so its
// AcknowledgedCounter behaves exactly like YCSB's for one client.
//
// The redraw guard follows: a loader only targets keys it knows exist, the
// recordcount loaded records plus its own acknowledged inserts. Other
// loaders' inserts are invisible to it (it cannot know whether they are
// done), so a draw landing on one is redrawn like YCSB redraws a key past
// last(). With n = 1 this is YCSB's guard exactly: key <= last().
//
// Successive run phases (mongobench runs several against one data set, e.g.
// the study's S3 and S4, which both insert): YCSB starts every run's inserts
// at recordcount again, so the second run's inserts collide with the
// first's. loader.insertkeyoffset moves a phase's inserted keys by a fixed
// offset (the controller gives each Run phase its own 2^40-key range). It
// changes only which key numbers the inserts get: draws are still made in
// YCSB's key space ([0, recordcount) plus this phase's inserts, as if they
// started at recordcount) and then mapped, so distributions are unchanged.
//
// For "latest" and "exponential", which count back from the newest record,
// the loader works in its position space: positions 0..recordcount-1 are the
// loaded records, position recordcount+j is its j-th insert. Counting back
// from its newest position keeps YCSB's semantics ("the most recently
// inserted records are the most popular") for each loader's own view.

// loadShare returns loader i of n's contiguous share of count items starting
// at start: the first count%n loaders get one item more.
func loadShare(start, count int64, i, n int) (int64, int64) {
	q, r := count/int64(n), count%int64(n)
	idx := int64(i)
	return start + idx*q + min(idx, r), q + boolInt64(idx < r)
}

func boolInt64(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// insertSequence is one loader's run-phase insert key sequence and its view
// of which keys exist.
type insertSequence struct {
	base   int64 // recordcount: keys below it were loaded
	index  int64 // this loader's index i
	stride int64 // the number of loaders n
	offset int64 // loader.insertkeyoffset: where this phase's inserted keys live
	ack    *AcknowledgedCounter
}

func newInsertSequence(recordcount int64, index, count int, offset int64) *insertSequence {
	return &insertSequence{
		base:   recordcount,
		index:  int64(index),
		stride: int64(count),
		offset: offset,
		ack:    NewAcknowledgedCounter(0),
	}
}

// next reserves the loader's next insert: its index j and its key number.
func (s *insertSequence) next() (j, keynum int64) {
	j = s.ack.Next()
	return j, s.base + s.offset + s.index + j*s.stride
}

// physical maps a key number of YCSB's key space (inserts right after
// recordcount) to the key actually written (inserts moved by the offset).
func (s *insertSequence) physical(k int64) int64 {
	if k < s.base {
		return k
	}
	return k + s.offset
}

// acknowledge marks insert j done (whatever its outcome, as YCSB does).
func (s *insertSequence) acknowledge(j int64) { s.ack.Acknowledge(j) }

// Last is the newest position known to exist (YCSB's
// transactioninsertkeysequence.lastValue() when there is one loader). It
// makes the sequence a LastValuer for SkewedLatestGenerator.
func (s *insertSequence) Last() int64 { return s.base + s.ack.Last() }

// keyAt maps a position to its key number.
func (s *insertSequence) keyAt(pos int64) int64 {
	if pos < s.base {
		return pos
	}
	return s.base + s.offset + s.index + (pos-s.base)*s.stride
}

// exists reports whether key number k of YCSB's key space (see physical) is
// known to exist: loaded, or inserted and acknowledged by this loader.
func (s *insertSequence) exists(k int64) bool {
	if k < s.base {
		return k >= 0
	}
	d := k - s.base - s.index
	if d < 0 || d%s.stride != 0 {
		return false
	}
	return d/s.stride <= s.ack.Last()
}
