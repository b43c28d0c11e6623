package ycsb

import (
	"bytes"
	"context"
	"time"
)

// DoInsert performs one load-phase insert (CoreWorkload.doInsert): the next
// key of this loader's range, all fields, retried up to
// core_workload_insertion_retry_limit times with a back-off of
// core_workload_insertion_retry_interval·(0.8..1.2) seconds. It returns false
// when the insert finally failed; like YCSB 0.17.0's ClientThread, the
// client then stops this thread.
func (w *Workload) DoInsert(ctx context.Context, db DB, ts *ThreadState) bool {
	keynum := w.keySequence.Next(nil)
	ts.key = BuildKeyName(ts.key[:0], keynum, w.zeroPadding, w.ordered)
	values := w.buildValues(ts)
	for retries := 0; ; {
		if ts.insert(ctx, db, w.table, values).IsOK() {
			return true
		}
		retries++
		if retries > w.insertionRetryLimit || !ts.retryBackoff(ctx, w.insertionRetryInterval) {
			return false
		}
	}
}

// retryBackoff sleeps before an insert retry; false if interrupted.
func (ts *ThreadState) retryBackoff(ctx context.Context, intervalSec int) bool {
	d := time.Duration(float64(intervalSec) * (0.8 + 0.4*ts.rng.NextDouble()) * float64(time.Second))
	if ts.timer == nil {
		ts.timer = time.NewTimer(d)
	} else {
		ts.timer.Reset(d)
	}
	select {
	case <-ts.timer.C:
		return true
	case <-ctx.Done():
	case <-ts.stop:
	}
	ts.timer.Stop()
	return false
}

// DoTransaction performs one run-phase operation chosen by the operation
// chooser (CoreWorkload.doTransaction). It returns false only if the
// workload has no operation to choose from.
func (w *Workload) DoTransaction(ctx context.Context, db DB, ts *ThreadState) bool {
	if w.opChooser.Len() == 0 {
		return false
	}
	switch w.opChooser.Next(ts.rng) {
	case OpRead:
		w.doRead(ctx, db, ts)
	case OpUpdate:
		w.doUpdate(ctx, db, ts)
	case OpInsert:
		w.doTransactionInsert(ctx, db, ts)
	case OpScan:
		w.doScan(ctx, db, ts)
	default:
		w.doReadModifyWrite(ctx, db, ts)
	}
	return true
}

// nextKeynum chooses the key of a read, update, scan or read-modify-write,
// never one that is not known to exist (see keyspace.go): YCSB redraws while
// the key is past transactioninsertkeysequence.lastValue(); for exponential
// it counts back from the newest record and redraws while that goes below 0.
func (w *Workload) nextKeynum(r *Rand) int64 {
	switch w.distribution {
	case distExponential:
		for {
			if pos := w.inserts.Last() - w.keyChooser.Next(r); pos >= 0 {
				return w.inserts.keyAt(pos)
			}
		}
	case distLatest:
		// SkewedLatest draws a position in [0, Last()], which exists.
		return w.inserts.keyAt(w.keyChooser.Next(r))
	default:
		for {
			if k := w.keyChooser.Next(r); w.inserts.exists(k) {
				return w.inserts.physical(k)
			}
		}
	}
}

// readFields returns the field list of a read: nil for all fields (YCSB
// passes null), every name when dataintegrity or readallfieldsbyname asks
// for it, else one random field. The slices alias the workload's names with
// capped capacity, so a binding cannot append into them.
func (w *Workload) readFields(ts *ThreadState, integrity bool) []string {
	switch {
	case !w.readAllFields:
		f := w.fieldChooser.Next(ts.rng)
		return w.fieldNames[f : f+1 : f+1]
	case integrity || w.readAllFieldsByName:
		return w.fieldNames[:len(w.fieldNames):len(w.fieldNames)]
	}
	return nil
}

func (w *Workload) doRead(ctx context.Context, db DB, ts *ThreadState) {
	ts.key = BuildKeyName(ts.key[:0], w.nextKeynum(ts.rng), w.zeroPadding, w.ordered)
	fields := w.readFields(ts, w.dataIntegrity)
	var result *[]Field
	if w.dataIntegrity {
		ts.readResult = ts.readResult[:0]
		result = &ts.readResult
	}
	ts.read(ctx, db, w.table, fields, result)
	if w.dataIntegrity {
		w.verifyRow(ts)
	}
}

func (w *Workload) doUpdate(ctx context.Context, db DB, ts *ThreadState) {
	ts.key = BuildKeyName(ts.key[:0], w.nextKeynum(ts.rng), w.zeroPadding, w.ordered)
	ts.update(ctx, db, w.table, w.buildUpdateValues(ts))
}

func (w *Workload) doScan(ctx context.Context, db DB, ts *ThreadState) {
	ts.key = BuildKeyName(ts.key[:0], w.nextKeynum(ts.rng), w.zeroPadding, w.ordered)
	n := int(w.scanLength.Next(ts.rng))
	// 0.17.0 passes null (all fields) when readallfields, even with
	// dataintegrity; scans are not verified.
	ts.scan(ctx, db, w.table, n, w.readFields(ts, false))
}

// doTransactionInsert inserts the loader's next run-phase key and
// acknowledges it whatever the outcome, so the insert horizon keeps moving
// (YCSB's try/finally). Run-phase inserts are not retried, as in YCSB.
func (w *Workload) doTransactionInsert(ctx context.Context, db DB, ts *ThreadState) {
	j, keynum := w.inserts.next()
	ts.key = BuildKeyName(ts.key[:0], keynum, w.zeroPadding, w.ordered)
	ts.insert(ctx, db, w.table, w.buildValues(ts))
	w.inserts.acknowledge(j)
}

// doReadModifyWrite reads a record and writes it back. The inner READ and
// UPDATE are measured as such; READ-MODIFY-WRITE measures both together.
// Like 0.17.0 the update is issued even if the read failed. Unlike 0.17.0
// (which records every RMW latency as a success and reports no status), the
// RMW's status is the read's if that failed, else the update's, and a failed
// RMW goes to READ-MODIFY-WRITE-FAILED like every other operation.
func (w *Workload) doReadModifyWrite(ctx context.Context, db DB, ts *ThreadState) {
	ts.key = BuildKeyName(ts.key[:0], w.nextKeynum(ts.rng), w.zeroPadding, w.ordered)
	fields := w.readFields(ts, false)
	values := w.buildUpdateValues(ts)
	var result *[]Field
	if w.dataIntegrity {
		ts.readResult = ts.readResult[:0]
		result = &ts.readResult
	}
	start := ts.now()
	st := ts.read(ctx, db, w.table, fields, result)
	ust := ts.update(ctx, db, w.table, values)
	if st.IsOK() {
		st = ust
	}
	// YCSB's intended latency of the READ-MODIFY-WRITE runs from the
	// intended start the inner READ and UPDATE share to the UPDATE's end;
	// verifyRow is not timed.
	ts.measure(OpReadModifyWrite, st, start)
	if w.dataIntegrity {
		w.verifyRow(ts)
	}
}

// buildValues fills every field with a new value (insert, or update with
// writeallfields).
func (w *Workload) buildValues(ts *ThreadState) []Field {
	for i := range ts.fields {
		ts.fields[i].Value = w.buildValue(ts, i)
	}
	return ts.fields
}

// buildUpdateValues returns all fields if writeallfields, else one random
// field (YCSB's buildSingleValue).
func (w *Workload) buildUpdateValues(ts *ThreadState) []Field {
	if w.writeAllFields {
		return w.buildValues(ts)
	}
	f := int(w.fieldChooser.Next(ts.rng))
	ts.single[0] = Field{Name: w.fieldNames[f], Value: w.buildValue(ts, f)}
	return ts.single
}

// buildValue builds field i's value for ts.key in the field's buffer.
func (w *Workload) buildValue(ts *ThreadState, i int) []byte {
	n := min(max(int(w.fieldLength.Next(ts.rng)), 0), w.maxFieldLen)
	if w.dataIntegrity {
		ts.values[i] = AppendDeterministicValue(ts.values[i][:0], ts.key, w.fieldNames[i], n)
		return ts.values[i]
	}
	v := ts.values[i][:n]
	FillRandomValue(v, ts.rng)
	return v
}

// verifyRow checks the values a read returned against the deterministic
// values (CoreWorkload.verifyRow), measured as VERIFY: OK when all match,
// UNEXPECTED_STATE on a mismatch, ERROR when nothing was returned. YCSB
// records every VERIFY latency as a success; we split failures into
// VERIFY-FAILED like every other measurement.
func (w *Workload) verifyRow(ts *ThreadState) {
	start := ts.now()
	st := StatusOK
	if len(ts.readResult) == 0 {
		st = StatusError
	}
	for _, f := range ts.readResult {
		ts.verifyBuf = AppendDeterministicValue(ts.verifyBuf[:0], ts.key, f.Name, w.maxFieldLen)
		if !bytes.Equal(f.Value, ts.verifyBuf) {
			st = StatusUnexpectedState
			break
		}
	}
	ts.rec.Measure(OpVerify, st, time.Since(start).Microseconds())
}

// Measured DB calls: YCSB's DBWrapper. Latency is whole microseconds around
// the call, truncated like YCSB's (end-start)/1000.

func (ts *ThreadState) read(ctx context.Context, db DB, table string, fields []string, result *[]Field) Status {
	start := ts.now()
	st := db.Read(ctx, table, ts.key, fields, result)
	ts.measure(OpRead, st, start)
	return st
}

func (ts *ThreadState) update(ctx context.Context, db DB, table string, values []Field) Status {
	start := ts.now()
	st := db.Update(ctx, table, ts.key, values)
	ts.measure(OpUpdate, st, start)
	return st
}

func (ts *ThreadState) insert(ctx context.Context, db DB, table string, values []Field) Status {
	start := ts.now()
	st := db.Insert(ctx, table, ts.key, values)
	ts.measure(OpInsert, st, start)
	return st
}

func (ts *ThreadState) scan(ctx context.Context, db DB, table string, count int, fields []string) Status {
	start := ts.now()
	st := db.Scan(ctx, table, ts.key, count, fields)
	ts.measure(OpScan, st, start)
	return st
}
