package ycsb

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/mongobench/mongobench/internal/contract"
)

// Phase is what a run does: YCSB's load (-load: inserts) or run
// (-t: transactions).
type Phase uint8

// Phases.
const (
	PhaseLoad Phase = iota
	PhaseRun
)

func (p Phase) String() string {
	if p == PhaseLoad {
		return "load"
	}
	return "run"
}

// Request distributions (requestdistribution).
const (
	distUniform     = "uniform"
	distZipfian     = "zipfian"
	distLatest      = "latest"
	distHotspot     = "hotspot"
	distSequential  = "sequential"
	distExponential = "exponential"
)

// Workload is YCSB's CoreWorkload, configured from properties. It holds the
// state shared by all worker threads of one loader (key sequences, key
// chooser, operation chooser) and is safe for concurrent use; per-thread
// state lives in ThreadState.
type Workload struct {
	table        string
	fieldNames   []string
	fieldLength  NumberGenerator
	maxFieldLen  int
	constFieldLn bool

	readAllFields       bool
	readAllFieldsByName bool
	writeAllFields      bool
	dataIntegrity       bool

	recordCount int64
	insertStart int64
	insertCount int64
	zeroPadding int
	ordered     bool

	loaderIndex, loaderCount int

	// Load phase: this loader's share of the records.
	loadStart, loadOps int64
	keySequence        *CounterGenerator

	// Run phase.
	runOps       int64
	opChooser    DiscreteGenerator[Op]
	distribution string
	keyChooser   NumberGenerator
	inserts      *insertSequence
	// runInserts: the run phase inserts (insertproportion > 0), so it
	// needs the insert sequence's acknowledgement window (Prepare).
	runInserts   bool
	fieldChooser *UniformGenerator
	scanLength   NumberGenerator

	insertionRetryLimit    int
	insertionRetryInterval int // seconds
}

// NewWorkload validates the CoreWorkload properties and builds the shared
// generators. Defaults and validation follow YCSB 0.17.0; where YCSB exits
// the JVM or throws later, this returns an error naming the property.
func NewWorkload(p *Properties) (*Workload, error) { //nolint:gocyclo // one linear pass over CoreWorkload's properties, in YCSB's order
	w := &Workload{table: p.String("table", "usertable")}
	var errs []error
	check := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	getInt64 := func(key string, def int64) int64 {
		v, err := p.Int64(key, def)
		check(err)
		return v
	}
	getInt := func(key string, def int) int {
		v, err := p.Int(key, def)
		check(err)
		return v
	}
	getFloat := func(key string, def float64) float64 {
		v, err := p.Float64(key, def)
		check(err)
		return v
	}
	getBool := func(key string, def bool) bool {
		v, err := p.Bool(key, def)
		check(err)
		return v
	}

	fieldCount := getInt64(contract.PropFieldCount, 10)
	prefix := p.String("fieldnameprefix", "field")
	fieldLength := getInt(contract.PropFieldLength, 100)
	minFieldLength := getInt("minfieldlength", 1)
	lengthDist := p.String("fieldlengthdistribution", "constant")
	size, sizeErrs := readPhaseSize(p)
	errs = append(errs, sizeErrs...)
	w.zeroPadding = getInt(contract.PropZeroPadding, 1)
	w.readAllFields = getBool(contract.PropReadAllFields, true)
	w.readAllFieldsByName = getBool("readallfieldsbyname", false)
	w.writeAllFields = getBool(contract.PropWriteAllFields, false)
	w.dataIntegrity = getBool("dataintegrity", false)
	w.ordered = p.String(contract.PropInsertOrder, "hashed") != "hashed"
	readP := getFloat(contract.PropReadProportion, 0.95)
	updateP := getFloat(contract.PropUpdateProportion, 0.05)
	insertP := getFloat(contract.PropInsertProportion, 0)
	scanP := getFloat(contract.PropScanProportion, 0)
	rmwP := getFloat(contract.PropReadModifyWriteProportion, 0)
	w.distribution = p.String(contract.PropRequestDistribution, distUniform)
	minScan := getInt64("minscanlength", 1)
	maxScan := getInt64("maxscanlength", 1000)
	scanDist := p.String("scanlengthdistribution", "uniform")
	hotData := getFloat("hotspotdatafraction", 0.2)
	hotOpn := getFloat("hotspotopnfraction", 0.8)
	expPct := getFloat("exponential.percentile", 95)
	expFrac := getFloat("exponential.frac", 0.8571428571)
	w.insertionRetryLimit = getInt("core_workload_insertion_retry_limit", 0)
	w.insertionRetryInterval = getInt("core_workload_insertion_retry_interval", 3)
	w.loaderIndex = getInt("loader.index", 0)
	w.loaderCount = getInt(contract.PropLoaderCount, 1)
	insertKeyOffset := getInt64(contract.PropLoaderInsertKeyOffset, 0)
	if len(errs) > 0 {
		return nil, fmt.Errorf("workload properties: %w", errors.Join(errs...))
	}

	// Fields.
	if fieldCount < 1 || fieldCount > 1<<16 {
		return nil, fmt.Errorf("fieldcount: %d must be between 1 and 65536", fieldCount)
	}
	if strings.IndexByte(prefix, 0) >= 0 {
		// Field names become BSON keys, which end at a NUL; the binding
		// writes them without checking each time (rawbson.go).
		return nil, fmt.Errorf("fieldnameprefix: %q contains a NUL byte, which no field name may hold", prefix)
	}
	for i := range fieldCount {
		w.fieldNames = append(w.fieldNames, fmt.Sprintf("%s%d", prefix, i))
	}
	if err := w.initFieldLength(p, lengthDist, fieldLength, minFieldLength); err != nil {
		return nil, err
	}
	if w.dataIntegrity && lengthDist != "constant" {
		return nil, errors.New("dataintegrity: requires fieldlengthdistribution=constant (YCSB: \"Must have constant field size to check data integrity\")")
	}

	// Record counts and this loader's share of them.
	if err := size.validate(); err != nil {
		return nil, err
	}
	w.recordCount, w.insertStart, w.insertCount = size.recordCount, size.insertStart, size.insertCount
	if w.zeroPadding < 0 {
		return nil, fmt.Errorf("zeropadding: %d must not be negative", w.zeroPadding)
	}
	if w.insertionRetryLimit < 0 || w.insertionRetryInterval < 0 {
		return nil, errors.New("core_workload_insertion_retry_limit and core_workload_insertion_retry_interval must not be negative")
	}
	loadStart, loadOps, runOps, err := size.share(w.loaderIndex, w.loaderCount)
	if err != nil {
		return nil, err
	}
	w.loadStart, w.loadOps, w.runOps = loadStart, loadOps, runOps
	w.keySequence = NewCounterGenerator(w.loadStart)
	if insertKeyOffset < 0 || insertKeyOffset > math.MaxInt64/4 {
		return nil, fmt.Errorf("loader.insertkeyoffset: %d must be between 0 and 2^61", insertKeyOffset)
	}
	w.inserts = newInsertSequence(w.recordCount, w.loaderIndex, w.loaderCount, insertKeyOffset)

	// Operation chooser, in YCSB's order.
	for _, c := range []struct {
		name string
		p    float64
		op   Op
	}{
		{contract.PropReadProportion, readP, OpRead},
		{contract.PropUpdateProportion, updateP, OpUpdate},
		{contract.PropInsertProportion, insertP, OpInsert},
		{contract.PropScanProportion, scanP, OpScan},
		{contract.PropReadModifyWriteProportion, rmwP, OpReadModifyWrite},
	} {
		if c.p < 0 || math.IsNaN(c.p) || math.IsInf(c.p, 0) {
			return nil, fmt.Errorf("%s: %v must be a non-negative number", c.name, c.p)
		}
		if c.p > 0 {
			w.opChooser.Add(c.p, c.op)
		}
		if c.op == OpInsert {
			w.runInserts = c.p > 0
		}
	}

	// Key chooser.
	is, ic := w.insertStart, w.insertCount
	switch w.distribution {
	case distUniform:
		w.keyChooser, err = NewUniformGenerator(is, is+ic-1)
	case distExponential:
		w.keyChooser, err = NewExponentialGenerator(expPct, float64(w.recordCount)*expFrac)
	case distSequential:
		w.keyChooser, err = NewSequentialGenerator(is, is+ic-1)
	case distZipfian:
		// The key space includes the inserts expected during the run (2 is
		// YCSB's fudge factor) so popularity does not shift as records are
		// added; draws past the newest record are redrawn. opcount is the
		// phase's total over all loaders, as every loader's inserts share
		// this key space.
		expectedNewKeys := javaInt(float64(size.opCount) * insertP * 2)
		w.keyChooser, err = NewScrambledZipfianGenerator(is, is+ic+expectedNewKeys)
	case distLatest:
		w.keyChooser, err = NewSkewedLatestGenerator(w.inserts)
	case distHotspot:
		w.keyChooser, err = NewHotspotGenerator(is, is+ic-1, hotData, hotOpn)
	default:
		return nil, fmt.Errorf("requestdistribution: unknown distribution %q (uniform, zipfian, latest, hotspot, sequential, exponential)", w.distribution)
	}
	if err != nil {
		return nil, fmt.Errorf("requestdistribution %s: %w", w.distribution, err)
	}

	if w.fieldChooser, err = NewUniformGenerator(0, fieldCount-1); err != nil {
		return nil, err
	}

	// Scan length.
	if minScan < 0 || maxScan < minScan || maxScan > math.MaxInt32 {
		return nil, fmt.Errorf("minscanlength %d / maxscanlength %d: need 0 <= min <= max < 2^31", minScan, maxScan)
	}
	switch scanDist {
	case "uniform":
		w.scanLength, err = NewUniformGenerator(minScan, maxScan)
	case "zipfian":
		w.scanLength, err = NewZipfianGenerator(minScan, maxScan)
	default:
		return nil, fmt.Errorf("scanlengthdistribution: distribution %q not allowed for scan length (uniform, zipfian)", scanDist)
	}
	if err != nil {
		return nil, fmt.Errorf("scanlengthdistribution: %w", err)
	}
	return w, nil
}

// initFieldLength builds the field length generator and the buffer size.
func (w *Workload) initFieldLength(p *Properties, dist string, fieldLength, minFieldLength int) error {
	if fieldLength < 0 || minFieldLength < 0 {
		return fmt.Errorf("fieldlength %d / minfieldlength %d must not be negative", fieldLength, minFieldLength)
	}
	if fieldLength > 64<<20 {
		return fmt.Errorf("fieldlength: %d is larger than 64 MiB", fieldLength)
	}
	w.maxFieldLen = fieldLength
	var err error
	switch dist {
	case "constant":
		w.fieldLength = ConstantGenerator{V: int64(fieldLength)}
		w.constFieldLn = true
	case "uniform":
		w.fieldLength, err = NewUniformGenerator(int64(minFieldLength), int64(fieldLength))
	case "zipfian":
		if minFieldLength > fieldLength {
			return fmt.Errorf("minfieldlength %d exceeds fieldlength %d", minFieldLength, fieldLength)
		}
		w.fieldLength, err = NewZipfianGenerator(int64(minFieldLength), int64(fieldLength))
	case "histogram":
		var g *HistogramGenerator
		g, err = LoadHistogramGenerator(p.String("fieldlengthhistogram", "hist.txt"))
		if err == nil {
			w.fieldLength = g
			w.maxFieldLen = int(min(g.Max(), 64<<20))
		}
	default:
		return fmt.Errorf("fieldlengthdistribution: unknown field length distribution %q (constant, uniform, zipfian, histogram)", dist)
	}
	if err != nil {
		return fmt.Errorf("fieldlengthdistribution %s: %w", dist, err)
	}
	return nil
}

// Table returns the table (collection) name.
func (w *Workload) Table() string { return w.table }

// FieldNames returns the field names; callers must not modify the slice.
func (w *Workload) FieldNames() []string { return w.fieldNames }

// RecordCount returns recordcount (Integer.MAX_VALUE when unset or 0).
func (w *Workload) RecordCount() int64 { return w.recordCount }

// Loader returns this loader's index and the number of parallel loaders.
func (w *Workload) Loader() (index, count int) { return w.loaderIndex, w.loaderCount }

// LoadRange returns the first key number and the number of records this
// loader inserts in the load phase.
func (w *Workload) LoadRange() (start, count int64) { return w.loadStart, w.loadOps }

// OperationCount returns how many operations this loader performs in the
// phase; 0 means unlimited (bounded by maxexecutiontime or cancellation).
//
// Load: YCSB's insertcount if set, else recordcount, with one loader; with n
// loaders this loader's share of [insertstart, insertstart+insertcount).
// Run: operationcount, or this loader's share of it (the property is the
// phase's total, like recordcount).
func (w *Workload) OperationCount(phase Phase) int64 {
	if phase == PhaseLoad {
		return w.loadOps
	}
	return w.runOps
}

// checkPhase reports whether the workload can run the phase.
func (w *Workload) checkPhase(phase Phase) error {
	if phase == PhaseRun && w.opChooser.Len() == 0 {
		return errors.New("no operation has a positive proportion (readproportion, updateproportion, insertproportion, scanproportion, readmodifywriteproportion)")
	}
	return nil
}

// Prepare does the set-up of a phase that would otherwise fall in its
// first operations, and so in its measured window: for a run phase that
// inserts, the insert sequence's acknowledgement window (8 MB, allocated
// and its pages touched). The loader calls it when it builds the workload,
// before it connects, as it builds a Zipfian's zeta; Run works without it.
// Not safe to call while a phase runs.
func (w *Workload) Prepare(phase Phase) {
	if phase == PhaseRun && w.runInserts {
		w.inserts.ack.prepare()
	}
}
