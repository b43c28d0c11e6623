package growth

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/results"
)

// A Grow phase keeps its state in the state collection
// (<collection>_growth, StateCollectionSuffix), one JSON document per
// entry ({_id, data}), so that a loader that replaces a stopped one (a
// rescheduled pod) carries on where it stopped and loses nothing it
// measured:
//
//   - "meta": when the phase started, the settings it runs with (every
//     growth property, Config.Properties), how many loaders resumed it and
//     how many records they repaired;
//   - "checkpoint-NNNN": each checkpoint's row, saved once the checkpoint
//     is done, with the histograms of its segment's inserts and of its
//     queries (INSERT, Q1..Q4), from which the phase's overall
//     measurements are merged again;
//   - "segment": the measurements of an unfinished segment, saved by a
//     loader that was stopped (SIGTERM) or failed during it, and taken up
//     by the next one (a loader killed outright saves nothing: its part
//     of the segment is then not measured, and the row says Resumed).
//
// On start, a loader reads the state and finds the resume point in the
// collection itself: the highest _id plus one, through the _id index (one
// key, whatever the collection's size). Documents are made from (seed, i),
// so the loader goes on with exactly the documents the stopped one would
// have inserted.
//
// Holes: with several insert threads, unordered batches (a failed document
// does not stop the rest, and through mongos each shard applies its part
// on its own) or w:0, documents below the highest _id may be missing when
// a loader stops: those in flight, or never applied. The records below the
// last checkpoint were all written (a row is saved after its segment's inserts
// returned); above it, the resuming loader counts the _id range (an index
// count of at most one checkpoint's records), and if documents are
// missing, reads the range's _ids in order (covered by the _id index) and
// inserts the missing ones again, acknowledged and unmeasured
// (GrowthResult.RepairedRecords). Unacknowledged inserts below the last
// checkpoint that the server never applied are not looked for: the sizes'
// document count shows them.
//
// A checkpoint whose row is missing is taken again if the collection holds
// exactly its records (the loader stopped during its queries); the queries
// run again then. Anything else that does not add up (documents without
// state, state without documents, documents beyond a checkpoint without
// its row, other settings) is an error that names what to drop to start
// over: the loader never measures a data set it did not make.
// StateCollectionSuffix names the collection where a Grow phase keeps its
// state, beside its own and in the same database: <collection>_growth.
const StateCollectionSuffix = "_growth"

const (
	stateMetaID    = "meta"
	stateSegment   = "segment"
	stateRowPrefix = "checkpoint-"
	// stateVersion is the version of the state documents.
	stateVersion = 1
	// repairBatch is the number of documents per repair insert.
	repairBatch = 1000
)

// stateMeta is the "meta" state document.
type stateMeta struct {
	Version    int               `json:"version"`
	Start      time.Time         `json:"start"`
	Properties map[string]string `json:"properties"`
	Restarts   int               `json:"restarts,omitempty"`
	Repaired   int64             `json:"repairedRecords,omitempty"`
}

// storedRow is a "checkpoint-NNNN" state document: the row and the
// histograms behind it (Ops: the segment's INSERT, then the queries).
type storedRow struct {
	Version    int                      `json:"version"`
	Row        results.GrowthCheckpoint `json:"row"`
	Ops        []results.OpResult       `json:"ops"`
	WorkMillis int64                    `json:"workMillis"`
}

// storedSegment is the "segment" state document.
type storedSegment struct {
	Version int `json:"version"`
	segment
}

func rowID(j int) string { return fmt.Sprintf("%s%04d", stateRowPrefix, j) }

// decodeState parses a state document strictly.
func decodeState(id, data string, v any) error {
	dec := json.NewDecoder(strings.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("state %q: %w", id, err)
	}
	return nil
}

func (e *engine) saveState(ctx context.Context, id string, v any) error {
	var b bytes.Buffer
	if err := json.NewEncoder(&b).Encode(v); err != nil {
		return fmt.Errorf("encode state %q: %w", id, err)
	}
	if err := e.store.SaveState(ctx, id, b.String()); err != nil {
		return fmt.Errorf("save the phase's state: %w", err)
	}
	return nil
}

// saveRow saves a checkpoint's row, even after a stop.
func (e *engine) saveRow(ctx context.Context, r *storedRow) error {
	r.Version = stateVersion
	return e.saveState(context.WithoutCancel(ctx), rowID(r.Row.Index), r)
}

// saveSegment saves an unfinished segment's measurements.
func (e *engine) saveSegment(ctx context.Context, seg *segment) error {
	return e.saveState(ctx, stateSegment, storedSegment{Version: stateVersion, segment: *seg})
}

// addRow adds a saved row to the result: its summary to the rows, its
// histograms to the overall measurements (then they are dropped).
func (e *engine) addRow(r *storedRow) {
	e.rows = append(e.rows, r.Row)
	for i := range r.Ops {
		e.addOp(&r.Ops[i])
	}
	e.workMillis += r.WorkMillis
}

// startOver is what the errors that refuse a collection say to do.
const startOver = "drop the collection and its " + StateCollectionSuffix + " companion to start over"

// resume reads the phase's state and the collection and returns where to
// go on: the next record and the segment it is in (see above). A new phase
// starts at record 0 and checkpoint 1.
func (e *engine) resume(ctx context.Context) (int64, *segment, error) {
	meta, saved, err := e.loadState(ctx)
	if err != nil {
		return 0, nil, err
	}
	maxID, found, err := e.store.MaxID(ctx)
	if err != nil {
		return 0, nil, fmt.Errorf("find the resume point: %w", err)
	}
	next := int64(0)
	if found {
		next = maxID + 1
	}
	if meta == nil {
		return 0, &segment{Checkpoint: 1}, e.start(ctx, found, maxID, saved != nil)
	}
	if diff := diffProperties(meta.Properties, e.cfg.Properties()); diff != "" {
		return 0, nil, fmt.Errorf("the phase was started with other settings (%s): resume it with the same ones, or %s", diff, startOver)
	}
	e.meta = *meta
	base, err := e.checkResumePoint(found, maxID)
	if err != nil {
		return 0, nil, err
	}
	e.meta.Restarts++
	repaired := int64(0)
	if next > base {
		if repaired, err = e.repairHoles(ctx, base, next); err != nil {
			return 0, nil, err
		}
		e.meta.Repaired += repaired
	}
	if err := e.saveState(ctx, stateMetaID, &e.meta); err != nil {
		return 0, nil, err
	}
	k := len(e.rows)
	seg := &segment{Checkpoint: k + 1, From: base, Resumed: true}
	switch {
	case saved != nil && saved.Checkpoint == seg.Checkpoint && saved.From == base:
		seg = &saved.segment
		seg.Resumed = true
	case saved != nil:
		// Left by a loader that stopped after saving the row it led to.
		if err := e.store.DeleteState(ctx, stateSegment); err != nil {
			return 0, nil, fmt.Errorf("delete a stale segment: %w", err)
		}
	}
	_, _ = fmt.Fprintf(e.opts.Log, "growth: resuming (restart %d) at record %d: %d of %d checkpoints done, %d missing records inserted again, "+
		"%d records of the segment measured before\n", e.meta.Restarts, next, k, e.planned, repaired, seg.Records)
	if e.opts.OnCheckpoint != nil {
		for i := range e.rows {
			e.opts.OnCheckpoint(&e.rows[i], true)
		}
	}
	return next, seg, nil
}

// loadState reads the state documents: the meta (nil for a new phase),
// the rows (added to the result as they are read) and a saved segment.
func (e *engine) loadState(ctx context.Context) (*stateMeta, *storedSegment, error) {
	var meta *stateMeta
	var saved *storedSegment
	err := e.store.LoadState(ctx, func(id, data string) error {
		switch {
		case id == stateMetaID:
			meta = &stateMeta{}
			if err := decodeState(id, data, meta); err != nil {
				return err
			}
			if meta.Version != stateVersion {
				return fmt.Errorf("state %q: version %d, want %d", id, meta.Version, stateVersion)
			}
		case id == stateSegment:
			saved = &storedSegment{}
			return decodeState(id, data, saved)
		case strings.HasPrefix(id, stateRowPrefix):
			var r storedRow
			if err := decodeState(id, data, &r); err != nil {
				return err
			}
			if r.Version != stateVersion || rowID(r.Row.Index) != id {
				return fmt.Errorf("state %q: version %d of checkpoint %d", id, r.Version, r.Row.Index)
			}
			e.addRow(&r)
		default:
			return fmt.Errorf("unknown state document %q", id)
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("read the phase's state: %w", err)
	}
	return meta, saved, nil
}

// start begins a new phase: the collection must be empty.
func (e *engine) start(ctx context.Context, found bool, maxID int64, saved bool) error {
	if len(e.rows) > 0 || saved {
		return fmt.Errorf("the phase's state has checkpoints but no %q document: %s", stateMetaID, startOver)
	}
	if found {
		return fmt.Errorf("the collection holds documents (the highest _id is %d) but no Grow phase state: "+
			"a Grow phase grows its own collection; %s", maxID, startOver)
	}
	e.meta = stateMeta{Version: stateVersion, Start: time.Now(), Properties: e.cfg.Properties()}
	return e.saveState(ctx, stateMetaID, &e.meta)
}

// checkResumePoint checks that the rows are the plan's and that the
// collection's highest _id fits them; it returns the last checkpoint's
// record count.
func (e *engine) checkResumePoint(found bool, maxID int64) (int64, error) {
	for i := range e.rows {
		if want := CheckpointRecords(e.cfg.TargetRecords, e.cfg.CheckpointEvery, i+1); e.rows[i].Index != i+1 || e.rows[i].Records != want {
			return 0, fmt.Errorf("the phase's state holds checkpoint %d at %d records where checkpoint %d at %d belongs: %s",
				e.rows[i].Index, e.rows[i].Records, i+1, want, startOver)
		}
	}
	k := len(e.rows)
	base, next := int64(0), int64(0)
	if k > 0 {
		base = e.rows[k-1].Records
	}
	if found {
		next = maxID + 1
	}
	switch {
	case found && maxID < 0:
		return 0, fmt.Errorf("the collection's highest _id is %d: not a growth document; %s", maxID, startOver)
	case next < base:
		return 0, fmt.Errorf("the collection holds records up to %d but checkpoint %d was taken at %d: documents were removed; %s",
			next, k, base, startOver)
	case next > e.cfg.TargetRecords:
		return 0, fmt.Errorf("the collection holds records up to %d, beyond the target %d; %s", next, e.cfg.TargetRecords, startOver)
	case k < e.planned && next > CheckpointRecords(e.cfg.TargetRecords, e.cfg.CheckpointEvery, k+1):
		return 0, fmt.Errorf("the collection holds records up to %d, beyond checkpoint %d at %d, which has no row; %s",
			next, k+1, CheckpointRecords(e.cfg.TargetRecords, e.cfg.CheckpointEvery, k+1), startOver)
	}
	return base, nil
}

// repairHoles inserts again the documents missing from [from, to) and
// returns how many there were.
func (e *engine) repairHoles(ctx context.Context, from, to int64) (int64, error) {
	n, err := e.store.CountIDs(ctx, from, to)
	if err != nil {
		return 0, fmt.Errorf("look for missing records: %w", err)
	}
	missing := (to - from) - n
	if missing <= 0 {
		return 0, nil
	}
	var buf []byte
	var ends []int
	flush := func() error {
		if len(ends) == 0 {
			return nil
		}
		docs := make([]bson.Raw, len(ends))
		start := 0
		for i, end := range ends {
			docs[i] = bson.Raw(buf[start:end])
			start = end
		}
		buf, ends = buf[:0], ends[:0]
		if err := e.store.Repair(ctx, docs); err != nil {
			return fmt.Errorf("insert: %w", err)
		}
		return nil
	}
	var repaired int64
	err = e.store.MissingIDs(ctx, from, to, func(id int64) error {
		buf = e.gen.AppendDocument(buf, id)
		ends = append(ends, len(buf))
		repaired++
		if len(ends) == repairBatch {
			return flush()
		}
		return nil
	})
	if err == nil {
		err = flush()
	}
	if err != nil {
		return repaired, fmt.Errorf("insert the %d records missing from [%d, %d) again: %w", missing, from, to, err)
	}
	if n, err = e.store.CountIDs(ctx, from, to); err != nil {
		return repaired, fmt.Errorf("count the records after the repair: %w", err)
	}
	if n != to-from {
		return repaired, fmt.Errorf("after inserting %d missing records again, [%d, %d) holds %d records", repaired, from, to, n)
	}
	return repaired, nil
}

// diffProperties lists the settings that differ: "name: was a, now b".
func diffProperties(was, now map[string]string) string {
	keys := slices.Sorted(maps.Keys(now))
	for k := range was {
		if _, ok := now[k]; !ok {
			keys = append(keys, k)
		}
	}
	var diffs []string
	for _, k := range keys {
		a, aok := was[k]
		b := now[k]
		if !aok {
			a = "unset"
		}
		if a != b {
			diffs = append(diffs, fmt.Sprintf("%s: was %q, now %q", k, a, b))
		}
	}
	return strings.Join(diffs, "; ")
}
