package ycsb

import (
	"context"
	"strings"
	"sync"
	"testing"
)

func TestNewWorkloadValidation(t *testing.T) {
	for _, tc := range []struct {
		name string
		kv   []string
		want string // substring of the error; "" = valid
	}{
		{"defaults", nil, ""},
		{"bad integer", []string{"recordcount=abc"}, `recordcount: "abc" is not an integer`},
		{"insert range", []string{"recordcount=100", "insertstart=50", "insertcount=60"}, "exceed recordcount"},
		{"insert range ok", []string{"recordcount=100", "insertstart=50", "insertcount=50"}, ""},
		{"integrity needs constant", []string{"dataintegrity=true", "fieldlengthdistribution=uniform"}, "requires fieldlengthdistribution=constant"},
		{"unknown distribution", []string{"requestdistribution=pareto"}, "unknown distribution"},
		{"negative proportion", []string{"readproportion=-1"}, "readproportion"},
		{"no fields", []string{"fieldcount=0"}, "fieldcount"},
		{"NUL in field names", []string{"fieldnameprefix=f\x00"}, "contains a NUL byte"},
		{"loader index", []string{"loader.count=2", "loader.index=2"}, "loader.index"},
		{"hotspot fraction", []string{"requestdistribution=hotspot", "hotspotdatafraction=2"}, "hotspotdatafraction"},
		{"scan lengths", []string{"minscanlength=10", "maxscanlength=5"}, "maxscanlength"},
		{"scan distribution", []string{"scanlengthdistribution=latest"}, "not allowed for scan length"},
		{"field length distribution", []string{"fieldlengthdistribution=pareto"}, "unknown field length distribution"},
		{"histogram file", []string{"fieldlengthdistribution=histogram", "fieldlengthhistogram=/nonexistent"}, "field length histogram"},
		{"bad bool", []string{"readallfields=yes"}, "readallfields"},
		{"too few run ops", []string{"operationcount=2", "loader.count=3", "loader.index=2"}, "smaller than loader.count"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kv := append([]string{"recordcount=1000", "operationcount=1000"}, tc.kv...)
			_, err := NewWorkload(props(kv...))
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestWorkloadDefaults(t *testing.T) {
	w, err := NewWorkload(NewProperties())
	if err != nil {
		t.Fatal(err)
	}
	if w.Table() != "usertable" || len(w.FieldNames()) != 10 || w.FieldNames()[9] != "field9" {
		t.Errorf("table %q fields %v", w.Table(), w.FieldNames())
	}
	if w.RecordCount() != 1<<31-1 {
		t.Errorf("recordcount default %d, want Integer.MAX_VALUE", w.RecordCount())
	}
	if w.OperationCount(PhaseLoad) != 0 || w.OperationCount(PhaseRun) != 0 {
		t.Error("unset counts should mean unlimited")
	}
	if w.ordered || !w.readAllFields || w.writeAllFields || w.maxFieldLen != 100 || w.zeroPadding != 1 {
		t.Error("defaults differ from YCSB")
	}
	if err := w.checkPhase(PhaseRun); err != nil {
		t.Error(err)
	}
	w2, _ := NewWorkload(props("readproportion=0", "updateproportion=0"))
	if err := w2.checkPhase(PhaseRun); err == nil {
		t.Error("a run with no operations accepted")
	}
}

func TestOperationCountSemantics(t *testing.T) {
	for _, tc := range []struct {
		kv        []string
		load, run int64
		start     int64
	}{
		{[]string{"recordcount=1000", "operationcount=500"}, 1000, 500, 0},
		{[]string{"recordcount=1000", "insertstart=200", "insertcount=300"}, 300, 0, 200},
		// One loader, insertstart without insertcount: YCSB inserts
		// recordcount records from insertstart.
		{[]string{"recordcount=1000", "insertstart=200"}, 1000, 0, 200},
		{[]string{"recordcount=1000", "operationcount=10", "loader.count=3", "loader.index=0"}, 334, 4, 0},
		{[]string{"recordcount=1000", "operationcount=10", "loader.count=3", "loader.index=2"}, 333, 3, 667},
		{[]string{"recordcount=1000", "insertstart=100", "insertcount=10", "loader.count=4", "loader.index=3"}, 2, 0, 108},
	} {
		w, err := NewWorkload(props(tc.kv...))
		if err != nil {
			t.Fatal(err)
		}
		start, _ := w.LoadRange()
		if w.OperationCount(PhaseLoad) != tc.load || w.OperationCount(PhaseRun) != tc.run || start != tc.start {
			t.Errorf("%v: load %d run %d start %d, want %d %d %d", tc.kv, w.OperationCount(PhaseLoad), w.OperationCount(PhaseRun), start, tc.load, tc.run, tc.start)
		}
	}
}

func TestLoadShareDisjointAndComplete(t *testing.T) {
	for _, count := range []int64{0, 1, 7, 100, 1001} {
		for n := 1; n <= 9; n++ {
			next := int64(50)
			var sizes []int64
			for i := range n {
				s, c := loadShare(50, count, i, n)
				if s != next {
					t.Fatalf("count %d n %d: loader %d starts at %d, want %d (gap or overlap)", count, n, i, s, next)
				}
				next = s + c
				sizes = append(sizes, c)
			}
			if next != 50+count {
				t.Fatalf("count %d n %d: union ends at %d, want %d", count, n, next, 50+count)
			}
			for _, c := range sizes {
				if c < sizes[len(sizes)-1] || c > sizes[0] || sizes[0]-c > 1 {
					t.Fatalf("count %d n %d: sizes %v differ by more than one", count, n, sizes)
				}
			}
		}
	}
}

func TestRunPhaseInsertsOfLoadersNeverCollide(t *testing.T) {
	const n, each = 4, 5000
	seen := map[int64]int{}
	for i := range n {
		w, err := NewWorkload(props("recordcount=1000", "operationcount=100000", "insertproportion=1", "readproportion=0", "updateproportion=0",
			"loader.count=4", "loader.index="+string(rune('0'+i))))
		if err != nil {
			t.Fatal(err)
		}
		for range each {
			j, k := w.inserts.next()
			w.inserts.acknowledge(j)
			if k < 1000 {
				t.Fatalf("loader %d inserts loaded key %d", i, k)
			}
			if prev, dup := seen[k]; dup {
				t.Fatalf("key %d inserted by loaders %d and %d", k, prev, i)
			}
			seen[k] = i
			if !w.inserts.exists(k) {
				t.Fatalf("loader %d does not know its own acknowledged key %d", i, k)
			}
		}
	}
	// Together they fill [1000, 1000+n*each) without gaps.
	for k := int64(1000); k < 1000+n*each; k++ {
		if _, ok := seen[k]; !ok {
			t.Fatalf("gap at %d", k)
		}
	}
}

func TestInsertSequenceGuard(t *testing.T) {
	s := newInsertSequence(100, 1, 3, 0) // loader 1 of 3: keys 101, 104, 107, ...
	if !s.exists(0) || !s.exists(99) || s.exists(-1) || s.exists(100) || s.exists(101) {
		t.Fatal("initial view wrong")
	}
	j, k := s.next()
	if k != 101 {
		t.Fatalf("first insert %d, want 101", k)
	}
	if s.exists(101) {
		t.Fatal("unacknowledged insert visible")
	}
	s.acknowledge(j)
	if !s.exists(101) || s.exists(102) || s.exists(104) || s.Last() != 100 || s.keyAt(100) != 101 {
		t.Fatalf("after ack: exists(101)=%v exists(104)=%v last=%d", s.exists(101), s.exists(104), s.Last())
	}
}

func TestReadFieldsAndWriteAllFields(t *testing.T) {
	var gotFields [][]string
	var gotValues []int
	var mu sync.Mutex
	rec := recordingDB{onRead: func(f []string) { mu.Lock(); gotFields = append(gotFields, f); mu.Unlock() },
		onUpdate: func(v []Field) { mu.Lock(); gotValues = append(gotValues, len(v)); mu.Unlock() }}
	for _, tc := range []struct {
		kv        []string
		fieldsLen int // -1: nil
		valuesLen int
		allByName bool
	}{
		{[]string{"readallfields=true"}, -1, 1, false},
		{[]string{"readallfields=false"}, 1, 1, false},
		{[]string{"readallfieldsbyname=true"}, 4, 1, true},
		{[]string{"writeallfields=true"}, -1, 4, false},
	} {
		gotFields, gotValues = nil, nil
		w, err := NewWorkload(props(append([]string{"recordcount=10", "operationcount=50", "fieldcount=4", "readproportion=0.5", "updateproportion=0.5"}, tc.kv...)...))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Run(context.Background(), w, rec.factory(), RunOptions{Phase: PhaseRun, Threads: 1, Seed: 1}); err != nil {
			t.Fatal(err)
		}
		for _, f := range gotFields {
			if (tc.fieldsLen == -1 && f != nil) || (tc.fieldsLen >= 0 && len(f) != tc.fieldsLen) {
				t.Errorf("%v: read fields %v", tc.kv, f)
				break
			}
			if cap(f) != len(f) {
				t.Errorf("%v: field list has spare capacity %d", tc.kv, cap(f))
				break
			}
		}
		for _, n := range gotValues {
			if n != tc.valuesLen {
				t.Errorf("%v: update with %d fields, want %d", tc.kv, n, tc.valuesLen)
				break
			}
		}
	}
}

// recordingDB is a no-op DB that reports what it was asked.
type recordingDB struct {
	onRead   func([]string)
	onUpdate func([]Field)
}

func (r recordingDB) factory() DBFactory {
	return func(context.Context, int, int) (DB, error) { return r, nil }
}
func (r recordingDB) Read(_ context.Context, _ string, _ []byte, f []string, _ *[]Field) Status {
	r.onRead(f)
	return StatusOK
}
func (recordingDB) Scan(context.Context, string, []byte, int, []string) Status { return StatusOK }
func (r recordingDB) Update(_ context.Context, _ string, _ []byte, v []Field) Status {
	r.onUpdate(v)
	return StatusOK
}
func (recordingDB) Insert(context.Context, string, []byte, []Field) Status { return StatusOK }
func (recordingDB) Delete(context.Context, string, []byte) Status          { return StatusOK }
func (recordingDB) Cleanup(context.Context) (int, error)                   { return 0, nil }

func TestKeyChooserRanges(t *testing.T) {
	for _, dist := range []string{"uniform", "hotspot", "sequential"} {
		w, err := NewWorkload(props("recordcount=1000", "insertstart=100", "insertcount=200", "requestdistribution="+dist))
		if err != nil {
			t.Fatal(err)
		}
		r := NewRand(1)
		for range 10000 {
			if k := w.nextKeynum(r); k < 100 || k >= 300 {
				t.Fatalf("%s: key %d outside [insertstart, insertstart+insertcount)", dist, k)
			}
		}
	}
	// Zipfian covers insertstart .. insertstart+insertcount+expected inserts
	// but redraws what is not inserted yet.
	w, _ := NewWorkload(props("recordcount=1000", "operationcount=1000", "insertproportion=0.5", "requestdistribution=zipfian"))
	sz := w.keyChooser.(*ScrambledZipfianGenerator)
	if sz.min != 0 || sz.itemcount != 1000+1000+1 {
		t.Fatalf("zipfian range min %d items %d, want 0 and 2001", sz.min, sz.itemcount)
	}
	r := NewRand(2)
	for range 10000 {
		if k := w.nextKeynum(r); k < 0 || k >= 1000 {
			t.Fatalf("zipfian key %d past the last record", k)
		}
	}
}

// TestInsertKeyOffset: a phase with loader.insertkeyoffset inserts its keys
// at recordcount+offset+..., and the guard maps YCSB's key space onto them.
func TestInsertKeyOffset(t *testing.T) {
	s := newInsertSequence(100, 1, 3, 1<<40)
	j, k := s.next()
	if want := int64(100 + 1<<40 + 1); k != want {
		t.Fatalf("first insert %d, want %d", k, want)
	}
	s.acknowledge(j)
	// YCSB's key 101 is this loader's first insert: it exists, and lives at k.
	if !s.exists(101) || s.physical(101) != k || s.keyAt(100) != k || s.physical(99) != 99 {
		t.Fatalf("exists(101)=%v physical(101)=%d keyAt(100)=%d", s.exists(101), s.physical(101), s.keyAt(100))
	}
	if _, err := NewWorkload(props("recordcount=10", "loader.insertkeyoffset=-1")); err == nil {
		t.Fatal("negative offset accepted")
	}
}
