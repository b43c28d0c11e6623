package mongodb

import (
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
// the binding passes (bson.Raw) and under a cancellable context without a
// deadline, as the binding's calls run (see guard.go). It runs with the
// loader binary's GOGC, so the ratio loader/floor compares work, not GC
// settings.

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
	coll    *mongo.Collection
	values  []ycsb.Field
	updates [][]byte
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
// scrambled zipfian generator (shared by the goroutines, as the
// workload's is) with a goroutine's own ycsb.Rand, hashed and formatted;
// the filter built from it per call; an update's value filled with fresh
// random bytes and its $set built per call; the call timed by two clock
// reads and measured into a ycsb.Recorder. What it leaves out is the
// engine and the binding around that work: the operation and field
// choosers, ThreadState, the DB interface, the guard, the collector.
// The floor's kinds, update fields and field lengths stay planned.
type ownWork struct {
	keys *ycsb.ScrambledZipfianGenerator
}

// newOwnWork returns the own work of a mix of reads and updates (the
// loader's key chooser for workload a: scrambled zipfian over the
// records).
func newOwnWork(m floorMix) (*ownWork, error) {
	if m.insert+m.scan+m.rmw > 0 || m.fields == 0 {
		return nil, fmt.Errorf("the floor's own work is for reads and updates of fields only (workload a)")
	}
	keys, err := ycsb.NewScrambledZipfianGenerator(0, m.recordCount-1)
	if err != nil {
		return nil, err
	}
	return &ownWork{keys: keys}, nil
}

// ownState is one goroutine's ownWork state.
type ownState struct {
	rng                 *ycsb.Rand
	rec                 *ycsb.Recorder
	epoch               time.Time
	key, filter, update []byte
	value               []byte
	field               []ycsb.Field
}

func (f *floor) newOwnState(g uint64, fieldLength int) *ownState {
	return &ownState{rng: ycsb.NewRand(g + 1), rec: ycsb.NewRecorder(), epoch: time.Now(),
		value: make([]byte, fieldLength), field: make([]ycsb.Field, 1)}
}

// prepare draws the operation's key and builds its filter (and an
// update's document), returning the filter.
func (o *ownState) prepare(w *ownWork, f *floor, op floorOp, field uint8) []byte {
	o.key = ycsb.BuildKeyName(o.key[:0], w.keys.Next(o.rng), 1, false)
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
		f.updates = append(f.updates, appendSetUpdate(nil, f.values[i:i+1]))
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
	var doc []byte
	var own *ownState
	if f.own != nil {
		own = f.newOwnState(uint64(g), len(f.values[0].Value))
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
		if own != nil {
			b = own.prepare(f.own, f, op, pl.arg[i])
			began = own.epoch.Add(time.Since(own.epoch)) // as ThreadState.now
		}
		var err error
		switch op {
		case floorInsert:
			doc = appendDocument(doc[:0], b, f.values)
			_, err = f.coll.InsertOne(ctx, bson.Raw(doc))
		case floorRead:
			err = f.read(ctx, b)
		case floorUpdate:
			if own != nil {
				err = f.updateWith(ctx, b, own.update)
			} else {
				err = f.update(ctx, b, pl.arg[i])
			}
		case floorRMW:
			if err = f.read(ctx, b); err == nil {
				err = f.update(ctx, b, pl.arg[i])
			}
		case floorScan:
			err = f.scan(ctx, b, int(pl.arg[i]))
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

func (f *floor) read(ctx context.Context, filter []byte) error {
	raw, err := f.coll.FindOne(ctx, bson.Raw(filter)).Raw()
	if err == nil && len(raw) == 0 {
		err = fmt.Errorf("find: empty document")
	}
	return err
}

// ownOps is the operation each floor kind is measured as (ownWork).
var ownOps = [...]ycsb.Op{floorRead: ycsb.OpRead, floorUpdate: ycsb.OpUpdate, floorInsert: ycsb.OpInsert,
	floorScan: ycsb.OpScan, floorRMW: ycsb.OpReadModifyWrite}

func (f *floor) update(ctx context.Context, filter []byte, field uint8) error {
	return f.updateWith(ctx, filter, f.updates[field])
}

func (f *floor) updateWith(ctx context.Context, filter, update []byte) error {
	res, err := f.coll.UpdateOne(ctx, bson.Raw(filter), bson.Raw(update))
	if err == nil && res.MatchedCount != 1 {
		err = fmt.Errorf("update: matched %d", res.MatchedCount)
	}
	return err
}

func (f *floor) scan(ctx context.Context, filter []byte, n int) error {
	cur, err := f.coll.Find(ctx, bson.Raw(filter), f.scans[n])
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
			floorCalls := func(own bool) map[string]int {
				srv := stubmongo.Start(t, stubmongo.Record())
				c := perfClient(t, srv.URI(), wl)
				f, m := floorFor(t, c, perfProperties(t, srv.URI(), wl, 1))
				if own {
					var err error
					if f.own, err = newOwnWork(m); err != nil {
						t.Fatal(err)
					}
				}
				if err := f.run(ctx, floorPlans(m, wl.phase == ycsb.PhaseLoad, callOps)); err != nil {
					t.Fatal(err)
				}
				return commandShapes(t, srv.Commands())
			}
			loaderCalls := func() map[string]int {
				srv := stubmongo.Start(t, stubmongo.Record())
				c := perfClient(t, srv.URI(), wl)
				if _, err := runLoader(ctx, c, perfProperties(t, srv.URI(), wl, callOps), wl.phase); err != nil {
					t.Fatal(err)
				}
				return commandShapes(t, srv.Commands())
			}
			loader := loaderCalls()
			compareCalls(t, floorCalls(false), loader)
			if wl.name == "a" {
				// BenchmarkPaired's a-own: the floor doing the loader's
				// own work makes the same calls.
				t.Run("own", func(t *testing.T) { compareCalls(t, floorCalls(true), loader) })
			}
		})
	}
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
