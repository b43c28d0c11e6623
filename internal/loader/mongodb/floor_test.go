package mongodb

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/testutil/stubmongo"
	"github.com/mongobench/mongobench/internal/ycsb"
)

// The floor: the driver calls a phase makes and nothing else, as lean as a
// hand-written client can be. Everything an operation needs is decided
// before the clock starts and held in flat tables without pointers (byte
// slices and offsets), which the garbage collector never scans: the kind
// of each operation, its key or its ready-made filter, a scan's length, an
// update's field. No generator, no histogram, no timer. Per operation the
// loop only builds an insert's document (key and ten fixed values; the
// driver copies it anyway) and calls the driver, with the argument types
// the binding passes (bson.Raw, boxed as the binding boxes its buffers:
// rawArg) and under a cancellable context without a deadline, as the
// binding's calls run (see guard.go). It runs with the loader binary's
// GOGC, so the ratio loader/floor compares work, not GC settings. Its
// variant with ownWork, below, does the loader's own per-operation work
// too (BenchmarkPaired/a-own).

// floorOp is one kind of operation of the floor.
type floorOp uint8

const (
	floorRead floorOp = iota
	floorUpdate
	floorInsert
	floorScan
	floorRMW
)

// floorMix is a workload's operation proportions, read from its properties
// with CoreWorkload's defaults (internal/ycsb/workload.go).
type floorMix struct {
	read, update, insert, scan, rmw float64
	maxScan                         int
	fields                          int
	fieldLength                     int
	recordCount                     int64
}

func mixOf(p *ycsb.Properties) (floorMix, error) {
	var m floorMix
	var err error
	get := func(key string, def float64) float64 {
		v, e := p.Float64(key, def)
		if err == nil && e != nil {
			err = e
		}
		return v
	}
	m.read = get(contract.PropReadProportion, 0.95)
	m.update = get(contract.PropUpdateProportion, 0.05)
	m.insert = get(contract.PropInsertProportion, 0)
	m.scan = get(contract.PropScanProportion, 0)
	m.rmw = get(contract.PropReadModifyWriteProportion, 0)
	if err != nil {
		return m, err
	}
	if m.maxScan, err = p.Int("maxscanlength", 1000); err != nil {
		return m, err
	}
	if m.fields, err = p.Int(contract.PropFieldCount, 10); err != nil {
		return m, err
	}
	if m.fieldLength, err = p.Int(contract.PropFieldLength, 100); err != nil {
		return m, err
	}
	if m.recordCount, err = p.Int64(contract.PropRecordCount, 0); err != nil {
		return m, err
	}
	return m, nil
}

// choose picks an operation kind by the proportions, as YCSB's
// DiscreteGenerator does (in the order read, update, insert, scan, rmw).
func (m floorMix) choose(u float64) floorOp {
	total := m.read + m.update + m.insert + m.scan + m.rmw
	u *= total
	for _, c := range []struct {
		op floorOp
		p  float64
	}{{floorRead, m.read}, {floorUpdate, m.update}, {floorInsert, m.insert}, {floorScan, m.scan}, {floorRMW, m.rmw}} {
		if u < c.p {
			return c.op
		}
		u -= c.p
	}
	return floorRMW
}

// floorPlan is one goroutine's operations. Table entry i is op i's: its
// kind, its bytes (an insert's key; otherwise the filter, {_id: key} or a
// scan's {_id: {$gte: key}}) at bytes[ends[i-1]:ends[i]], a scan's limit
// or an update's field index in arg.
type floorPlan struct {
	kinds []floorOp
	bytes []byte
	ends  []uint32
	arg   []uint8
}

// newFloorPlan decides count operations of a phase for goroutine g of
// perfThreads: loads insert keys g, g+8, ...; runs choose kinds by the mix,
// existing keys uniformly and new keys after recordcount, all hashed as
// YCSB's default insertorder does, so the keys have the loader's lengths.
func newFloorPlan(m floorMix, load bool, g, count int) *floorPlan {
	rng := rand.New(rand.NewPCG(uint64(g), 1))
	pl := &floorPlan{kinds: make([]floorOp, count), ends: make([]uint32, count), arg: make([]uint8, count)}
	pl.bytes = make([]byte, 0, count*40)
	var key []byte
	next := m.recordCount + int64(g) // run phase: the next new key
	for i := range count {
		op := floorInsert
		if !load {
			op = m.choose(rng.Float64())
		}
		switch {
		case load:
			key = ycsb.BuildKeyName(key[:0], int64(i*perfThreads+g), 1, false)
		case op == floorInsert:
			key = ycsb.BuildKeyName(key[:0], next, 1, false)
			next += perfThreads
		default:
			key = ycsb.BuildKeyName(key[:0], rng.Int64N(m.recordCount), 1, false)
		}
		switch op {
		case floorInsert:
			pl.bytes = append(pl.bytes, key...)
		case floorScan:
			pl.bytes = appendScanFilter(pl.bytes, key)
			pl.arg[i] = uint8(1 + rng.IntN(m.maxScan)) // uniform scan length
		default:
			pl.bytes = appendIDFilter(pl.bytes, key)
			pl.arg[i] = uint8(rng.IntN(m.fields))
		}
		pl.kinds[i] = op
		pl.ends[i] = uint32(len(pl.bytes))
	}
	return pl
}

// floor is the bare loop's fixed state, shared by its goroutines: the
// values of every insert, the update of each field, and a scan's options
// for each length.
type floor struct {
	coll   *mongo.Collection
	values []ycsb.Field
	// updates is the update of each field, boxed once (see rawArg).
	updates []any
	scans   []*options.FindOptionsBuilder
	// gate, when set, is held (read-locked) around each operation:
	// BenchmarkPaired's turns (paired_test.go).
	gate *sync.RWMutex
	// spin, when set, is client work added before each call:
	// BenchmarkPaired's calibration.
	spin time.Duration
	// own, when set, makes the floor do the loader's own per-operation
	// work too (ownWork): BenchmarkPaired's a-own.
	own *ownWork
}

// ownWork is the part of the loader's per-operation work that YCSB's
// semantics require, done by the floor (BenchmarkPaired/a-own) with the
// loader's own code: each read's and update's key drawn from workload a's
// key chooser (newOwnWork; shared by the goroutines, as the workload's
// is) with a goroutine's own ycsb.Rand, hashed and formatted;
// the filter built from it per call; an update's value filled with fresh
// random bytes and its $set built per call; the call timed by two clock
// reads and measured into a ycsb.Recorder. What it leaves out is the
// engine and the binding around that work: the operation and field
// choosers, ThreadState, the DB interface, the guard, the collector.
// The floor's kinds, update fields and field lengths stay planned.
type ownWork struct {
	keys    *ycsb.ScrambledZipfianGenerator
	records int64
}

// newOwnWork returns the own work of workload a's mix, reads and updates
// of one field. Its key chooser is the loader's for a (ycsb.NewWorkload,
// zipfian): scrambled zipfian over [0, recordcount] (the key space of a
// run without inserts), a draw past the last record redrawn
// (Workload.nextKeynum), so the hot keys are the loader's too.
func newOwnWork(m floorMix) (*ownWork, error) {
	if m.insert+m.scan+m.rmw > 0 || m.fields == 0 {
		return nil, fmt.Errorf("the floor's own work is for reads and updates of fields only (workload a)")
	}
	keys, err := ycsb.NewScrambledZipfianGenerator(0, m.recordCount)
	if err != nil {
		return nil, fmt.Errorf("own work's key chooser: %w", err)
	}
	return &ownWork{keys: keys, records: m.recordCount}, nil
}

// ownState is one goroutine's ownWork state.
type ownState struct {
	rng                  *ycsb.Rand
	rec                  *ycsb.Recorder
	epoch                time.Time
	key, filter, update  []byte
	filterArg, updateArg rawArg
	value                []byte
	field                []ycsb.Field
}

// newOwnState returns goroutine g's state, its values fieldLength bytes.
func newOwnState(g uint64, fieldLength int) *ownState {
	return &ownState{rng: ycsb.NewRand(g + 1), rec: ycsb.NewRecorder(), epoch: time.Now(),
		value: make([]byte, fieldLength), field: make([]ycsb.Field, 1)}
}

// prepare draws the operation's key and builds its filter (and an
// update's document), returning the filter.
func (o *ownState) prepare(w *ownWork, f *floor, op floorOp, field uint8) []byte {
	k := w.keys.Next(o.rng)
	for k >= w.records {
		k = w.keys.Next(o.rng)
	}
	o.key = ycsb.BuildKeyName(o.key[:0], k, 1, false)
	o.filter = appendIDFilter(o.filter[:0], o.key)
	if op == floorUpdate {
		ycsb.FillRandomValue(o.value, o.rng)
		o.field[0] = ycsb.Field{Name: f.values[field].Name, Value: o.value}
		o.update = appendSetUpdate(o.update[:0], o.field)
	}
	return o.filter
}

func newFloor(coll *mongo.Collection, m floorMix) (*floor, error) {
	if m.scan > 0 && m.maxScan > 255 || m.fields > 256 {
		return nil, fmt.Errorf("maxscanlength %d, fieldcount %d: the floor keeps a scan's length and a field's index in a byte", m.maxScan, m.fields)
	}
	f := &floor{coll: coll}
	rng := rand.New(rand.NewPCG(7, 11))
	for i := range m.fields {
		v := make([]byte, m.fieldLength)
		for j := range v {
			v[j] = byte(' ' + rng.IntN(95))
		}
		f.values = append(f.values, ycsb.Field{Name: "field" + strconv.Itoa(i), Value: v})
	}
	for i := range f.values {
		f.updates = append(f.updates, bson.Raw(appendSetUpdate(nil, f.values[i:i+1])))
	}
	if m.scan == 0 {
		return f, nil
	}
	f.scans = make([]*options.FindOptionsBuilder, m.maxScan+1)
	for n := 1; n <= m.maxScan; n++ {
		f.scans[n] = options.Find().SetSort(sortByID).SetLimit(int64(n))
	}
	return f, nil
}

// run runs the plans, one goroutine each.
func (f *floor) run(ctx context.Context, plans []*floorPlan) error {
	errs := make([]error, len(plans))
	var wg sync.WaitGroup
	for g, pl := range plans {
		wg.Go(func() { errs[g] = f.runPlan(ctx, pl, g) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func (f *floor) runPlan(ctx context.Context, pl *floorPlan, g int) error {
	// A filter is copied from the plan into filter, so that it is handed
	// to the driver as the binding hands its buffers, boxed once while its
	// start and length stay the same (rawArg): a few bytes copied instead
	// of an allocation per call.
	var doc, filter []byte
	var docArg, filterArg rawArg
	var own *ownState
	if f.own != nil {
		own = newOwnState(uint64(g), len(f.values[0].Value))
	}
	start := uint32(0)
	for i, op := range pl.kinds {
		b := pl.bytes[start:pl.ends[i]]
		start = pl.ends[i]
		if f.gate != nil {
			f.gate.RLock()
		}
		if f.spin > 0 {
			for t0 := time.Now(); time.Since(t0) < f.spin; { //nolint:revive // spinning is the point
			}
		}
		var began time.Time
		var arg any
		switch {
		case own != nil:
			arg = own.filterArg.of(own.prepare(f.own, f, op, pl.arg[i]))
			began = own.epoch.Add(time.Since(own.epoch)) // as ThreadState.now
		case op != floorInsert:
			filter = append(filter[:0], b...)
			arg = filterArg.of(filter)
		}
		var err error
		switch op {
		case floorInsert:
			doc = appendDocument(doc[:0], b, f.values)
			_, err = f.coll.InsertOne(ctx, docArg.of(doc))
		case floorRead:
			err = f.read(ctx, arg)
		case floorUpdate:
			if own != nil {
				err = f.update(ctx, arg, own.updateArg.of(own.update))
			} else {
				err = f.update(ctx, arg, f.updates[pl.arg[i]])
			}
		case floorRMW:
			if err = f.read(ctx, arg); err == nil {
				err = f.update(ctx, arg, f.updates[pl.arg[i]])
			}
		case floorScan:
			err = f.scan(ctx, arg, int(pl.arg[i]))
		}
		if own != nil {
			st := ycsb.StatusOK
			if err != nil {
				st = ycsb.StatusError
			}
			own.rec.Measure(ownOps[op], st, time.Since(began).Microseconds())
		}
		if f.gate != nil {
			f.gate.RUnlock()
		}
		if err != nil {
			return fmt.Errorf("operation %d (%d): %w", i, op, err)
		}
	}
	return nil
}

func (f *floor) read(ctx context.Context, filter any) error {
	raw, err := f.coll.FindOne(ctx, filter).Raw()
	if err == nil && len(raw) == 0 {
		err = fmt.Errorf("find: empty document")
	}
	return err
}

// ownOps is the operation each floor kind is measured as (ownWork).
var ownOps = [...]ycsb.Op{floorRead: ycsb.OpRead, floorUpdate: ycsb.OpUpdate, floorInsert: ycsb.OpInsert,
	floorScan: ycsb.OpScan, floorRMW: ycsb.OpReadModifyWrite}

func (f *floor) update(ctx context.Context, filter, update any) error {
	res, err := f.coll.UpdateOne(ctx, filter, update)
	if err == nil && res.MatchedCount != 1 {
		err = fmt.Errorf("update: matched %d", res.MatchedCount)
	}
	return err
}

func (f *floor) scan(ctx context.Context, filter any, n int) error {
	cur, err := f.coll.Find(ctx, filter, f.scans[n])
	if err != nil {
		return err
	}
	got := 0
	for cur.Next(ctx) {
		got++
	}
	err = cur.Err()
	if cerr := cur.Close(ctx); err == nil {
		err = cerr
	}
	if err == nil && got == 0 {
		err = fmt.Errorf("scan of %d: no document", n)
	}
	return err
}

// floorPlans splits n operations over perfThreads plans.
func floorPlans(m floorMix, load bool, n int) []*floorPlan {
	plans := make([]*floorPlan, perfThreads)
	for g := range plans {
		count := n / perfThreads
		if g < n%perfThreads {
			count++
		}
		plans[g] = newFloorPlan(m, load, g, count)
	}
	return plans
}

// TestFloorMakesTheLoadersCalls keeps the floor honest: for every
// CoreWorkload it sends the server the same kinds of commands as the
// loader (the same command names and fields, the same filter shapes, a
// scan's limit), in about the same proportions, and the same number of
// documents per scan on average. A floor that made cheaper calls than the
// loader would flatter it; one that made dearer calls would hide a slow
// loader.
func TestFloorMakesTheLoadersCalls(t *testing.T) {
	for _, wl := range perfWorkloads {
		if wl.feature {
			continue
		}
		t.Run(wl.name, func(t *testing.T) {
			ctx := context.Background()
			floorCalls := func(own bool, ops int) []bson.Raw {
				srv := stubmongo.Start(t, stubmongo.Record())
				c := perfClient(t, srv.URI(), wl)
				f, m := floorFor(t, c, perfProperties(t, srv.URI(), wl, 1))
				if own {
					var err error
					if f.own, err = newOwnWork(m); err != nil {
						t.Fatal(err)
					}
				}
				if err := f.run(ctx, floorPlans(m, wl.phase == ycsb.PhaseLoad, ops)); err != nil {
					t.Fatal(err)
				}
				return srv.Commands()
			}
			loaderCalls := func(ops int) []bson.Raw {
				srv := stubmongo.Start(t, stubmongo.Record())
				c := perfClient(t, srv.URI(), wl)
				if _, err := runLoader(ctx, c, perfProperties(t, srv.URI(), wl, ops), wl.phase); err != nil {
					t.Fatal(err)
				}
				return srv.Commands()
			}
			loaderShapes := commandShapes(t, loaderCalls(callOps))
			compareCalls(t, commandShapes(t, floorCalls(false, callOps)), loaderShapes)
			if wl.name == "a" {
				// BenchmarkPaired's a-own: the floor doing the loader's
				// own work makes the same calls, and its keys are the
				// loader's: the same hottest key, about as often. The
				// scrambled zipfian draws its hottest key 1/zetan of the
				// time (3.8%; YCSB's ZETAN over 10^10 items), the next
				// about half as often: over 5,000 reads the hottest leads
				// by more than five standard deviations.
				t.Run("own", func(t *testing.T) {
					compareCalls(t, commandShapes(t, floorCalls(true, callOps)), loaderShapes)
					ok, on, of := hottestFindKey(t, floorCalls(true, 10000))
					lk, ln, lf := hottestFindKey(t, loaderCalls(10000))
					if ok != lk || on*lf < ln*of/2 || on*lf > 2*ln*of {
						t.Errorf("hottest key: the own work's %q in %d of %d finds, the loader's %q in %d of %d", ok, on, of, lk, ln, lf)
					}
					ownUpdatesOneField(t, wl)
				})
			}
		})
	}
}

// ownUpdatesOneField checks the own work's updates (which the recorded
// commands do not show: they travel in a document sequence): each is
// {$set: {<a field>: <a fresh value of fieldlength printable bytes>}}, as
// the loader's update of one random field (writeallfields false).
func ownUpdatesOneField(t *testing.T, wl perfWorkload) {
	t.Helper()
	m, err := mixOf(perfProperties(t, "mongodb://unused", wl, 1))
	if err != nil {
		t.Fatal(err)
	}
	m.recordCount = 1000000
	f, err := newFloor(nil, m)
	if err != nil {
		t.Fatal(err)
	}
	w, err := newOwnWork(m)
	if err != nil {
		t.Fatal(err)
	}
	o := newOwnState(1, m.fieldLength)
	var last bson.RawValue
	for i := range 20 {
		field := uint8(i % m.fields)
		o.prepare(w, f, floorUpdate, field)
		elems, err := bson.Raw(o.update).Elements()
		if err != nil || len(elems) != 1 || elems[0].Key() != "$set" {
			t.Fatalf("update %v: %v", bson.Raw(o.update), err)
		}
		set, err := elems[0].Value().Document().Elements()
		if err != nil || len(set) != 1 || set[0].Key() != f.values[field].Name {
			t.Fatalf("update %v: want one field, %s (%v)", bson.Raw(o.update), f.values[field].Name, err)
		}
		_, v, ok := set[0].Value().BinaryOK()
		if !ok || len(v) != m.fieldLength || bytes.ContainsFunc(v, func(r rune) bool { return r < ' ' || r > ' '+95 }) {
			t.Fatalf("update %v: want %d printable bytes", bson.Raw(o.update), m.fieldLength)
		}
		if i > 0 && set[0].Value().Equal(last) {
			t.Fatalf("update %d repeats the last value: not fresh", i)
		}
		last = bson.RawValue{Type: set[0].Value().Type, Value: append([]byte(nil), set[0].Value().Value...)}
	}
}

// hottestFindKey returns the _id the point reads (finds of {_id: key})
// asked for most often, how often, and how many there were.
func hottestFindKey(t *testing.T, cmds []bson.Raw) (key string, n, finds int) {
	t.Helper()
	counts := map[string]int{}
	for _, c := range cmds {
		if _, ok := c.Lookup("find").StringValueOK(); !ok {
			continue
		}
		id, ok := c.Lookup("filter", idKey).StringValueOK()
		if !ok {
			continue // a scan's {_id: {$gte: key}}
		}
		finds++
		counts[id]++
		if counts[id] > n {
			key, n = id, counts[id]
		}
	}
	if finds == 0 {
		t.Fatal("no point read among the commands")
	}
	return key, n, finds
}

// compareCalls fails t unless the floor's command shapes are the loader's, in
// about the same proportions, with as many documents per scan.
func compareCalls(t *testing.T, floor, loader map[string]int) {
	t.Helper()
	for shape, n := range loader {
		if shape == scanDocsKey {
			continue
		}
		f := floor[shape]
		// Binomial noise of 2000 draws: a 5% share is 100 ± 10.
		if tol := max(callOps/50, n/4); f < n-tol || f > n+tol {
			t.Errorf("%s: the floor sent %d, the loader %d", shape, f, n)
		}
	}
	for shape, n := range floor {
		if _, ok := loader[shape]; !ok && shape != scanDocsKey {
			t.Errorf("%s: the floor sent %d, the loader none", shape, n)
		}
	}
	if fs, ls := floor[scanDocsKey], loader[scanDocsKey]; fs != 0 || ls != 0 {
		fa := float64(fs) / float64(floor[scanShape(t, floor)])
		la := float64(ls) / float64(loader[scanShape(t, loader)])
		if fa < 0.85*la || fa > 1.15*la {
			t.Errorf("documents per scan: floor %.1f, loader %.1f", fa, la)
		}
	}
}

// callOps is how many operations TestFloorMakesTheLoadersCalls compares.
const callOps = 2000

// scanDocsKey counts the documents the scans asked for (their limits).
const scanDocsKey = "scan documents"

// commandShapes counts the workload's commands by shape: the command's
// name, its fields and its filter's (with operators), without values.
func commandShapes(t *testing.T, cmds []bson.Raw) map[string]int {
	t.Helper()
	shapes := map[string]int{}
	for _, c := range cmds {
		elems, err := c.Elements()
		if err != nil || len(elems) == 0 {
			t.Fatalf("command %v: %v", c, err)
		}
		switch name := elems[0].Key(); name {
		case "find", "insert", "update", "delete":
		default:
			continue // handshakes, pings, hellos holding connections
		}
		var keys []string
		for _, e := range elems {
			switch k := e.Key(); k {
			case "lsid", "$clusterTime", "txnNumber":
				keys = append(keys, k) // present or not, never its value
			case "filter":
				keys = append(keys, "filter"+docShape(e.Value()))
			case "limit":
				keys = append(keys, "limit")
				if n, ok := e.Value().AsInt64OK(); ok && n > 1 {
					shapes[scanDocsKey] += int(n)
				}
			default:
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		shapes[strings.Join(keys, ",")]++
	}
	return shapes
}

// docShape is a document's keys, nested documents' keys in braces.
func docShape(v bson.RawValue) string {
	d, ok := v.DocumentOK()
	if !ok {
		return ""
	}
	elems, _ := d.Elements()
	var b strings.Builder
	b.WriteString("{")
	for _, e := range elems {
		b.WriteString(e.Key() + docShape(e.Value()) + ";")
	}
	b.WriteString("}")
	return b.String()
}

// scanShape is the shape of the scans (finds with a sort).
func scanShape(t *testing.T, shapes map[string]int) string {
	t.Helper()
	for s := range shapes {
		if strings.Contains(s, "sort") {
			return s
		}
	}
	t.Fatalf("no scan among %v", shapes)
	return ""
}
