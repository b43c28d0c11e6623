package ycsb

import "time"

// ThreadState is one worker's private state: its RNG, its measurement
// recorder and the buffers DoInsert and DoTransaction reuse, so that an
// operation allocates nothing in the engine. YCSB's equivalent is the
// workload's per-thread state object plus the allocations it makes per
// operation (strings, HashMaps, ByteIterators).
type ThreadState struct {
	rng *Rand
	rec *Recorder
	// epoch is when the state was made: now's wall-clock reading.
	epoch time.Time
	// intended: measurement.interval is intended or both, so calls also
	// record their intended latency, from intendedStart (the throttle's
	// schedule; zero before the first scheduled operation and without a
	// target, when it is the call's own start, as in YCSB).
	intended      bool
	intendedStart time.Time
	// stop, when closed, interrupts an insert-retry back-off.
	stop <-chan struct{}
	// dis, when set, sees every measured call (disruption.go): nil
	// without disruptions, and until the measured window starts.
	dis *threadDisruptions

	key        []byte
	values     [][]byte // one buffer per field
	fields     []Field  // all fields (insert, writeallfields)
	single     []Field  // one field (update of a random field)
	readResult []Field  // read results for dataintegrity
	verifyBuf  []byte
	timer      *time.Timer // insert-retry back-off, created on first use
}

// NewThreadState returns the state for one worker. The RNG and the recorder
// belong to that worker alone.
func (w *Workload) NewThreadState(rng *Rand, rec *Recorder) *ThreadState {
	ts := &ThreadState{
		rng:    rng,
		rec:    rec,
		epoch:  time.Now(),
		key:    make([]byte, 0, keyBufferSize(w.zeroPadding)),
		values: make([][]byte, len(w.fieldNames)),
		fields: make([]Field, len(w.fieldNames)),
		single: make([]Field, 1),
	}
	valueCap := w.maxFieldLen
	if w.dataIntegrity {
		// The deterministic value is built past its final length before
		// being truncated: room for key, field name and one hash chunk.
		maxName := 0
		for _, n := range w.fieldNames {
			maxName = max(maxName, len(n))
		}
		valueCap = max(w.maxFieldLen, keyBufferSize(w.zeroPadding)+1+maxName) + 12
		ts.verifyBuf = make([]byte, 0, valueCap)
		ts.readResult = make([]Field, 0, len(w.fieldNames))
	}
	// One backing array for all fields: fewer, larger allocations.
	backing := make([]byte, valueCap*len(w.fieldNames))
	for i := range ts.values {
		ts.values[i] = backing[i*valueCap : i*valueCap : (i+1)*valueCap]
		// The names never change; buildValues sets only the values.
		ts.fields[i].Name = w.fieldNames[i]
	}
	return ts
}

// Recorder returns the worker's measurement recorder.
func (ts *ThreadState) Recorder() *Recorder { return ts.rec }

// Rand returns the worker's RNG.
func (ts *ThreadState) Rand() *Rand { return ts.rng }

// now is the start of a call: the current instant, read from the
// monotonic clock alone. time.Now reads two clocks (wall and monotonic);
// a call's times are only ever compared with and subtracted from other
// instants, which uses the monotonic readings, so the wall reading is
// carried forward from the thread's epoch instead (epoch.Add keeps both
// readings). This and measure's time.Since make a call's timing two clock
// reads instead of four.
func (ts *ThreadState) now() time.Time {
	return ts.epoch.Add(time.Since(ts.epoch))
}

// measure records a call that started at start and ends now, with the
// call's intended latency when those are measured (YCSB's DBWrapper
// measure: (end-start)/1000 and (end-intendedStart)/1000 µs, truncated).
func (ts *ThreadState) measure(op Op, st Status, start time.Time) {
	// One monotonic clock read; end is start moved by it (see now).
	d := time.Since(start)
	us := d.Microseconds()
	if dis := ts.dis; dis != nil {
		if end := start.Add(d); !end.Before(dis.from) {
			// Outside a disruption's stretch, this comparison is the cost.
			dis.record(op, st, start, end)
		}
	}
	if !ts.intended {
		ts.rec.Measure(op, st, us)
		return
	}
	ist := ts.intendedStart
	if ist.IsZero() {
		ist = start
	}
	ts.rec.MeasureIntended(op, st, us, start.Add(d).Sub(ist).Microseconds())
}
