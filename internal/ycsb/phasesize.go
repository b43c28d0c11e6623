package ycsb

import (
	"errors"
	"fmt"
	"math"

	"github.com/mongobench/mongobench/internal/contract"
)

// phaseSize is what sizes a phase's operations: recordcount, insertstart,
// insertcount and operationcount, as YCSB reads them. NewWorkload takes
// one loader's share of it, and PhaseOperations adds up every loader's,
// so that what the manager plans for a phase is what its loaders do.
type phaseSize struct {
	// rawRecordCount is recordcount as set: with one loader, 0 loads
	// without limit (YCSB's Client reads the raw value).
	rawRecordCount int64
	// recordCount is recordcount, Integer.MAX_VALUE for 0 (YCSB's
	// CoreWorkload), once validated.
	recordCount    int64
	insertStart    int64
	insertCount    int64
	hasInsertCount bool
	opCount        int64
}

// readPhaseSize parses the properties that size a phase; validate checks
// them. The parse errors are returned for the caller to report with its
// own.
func readPhaseSize(p *Properties) (phaseSize, []error) {
	var errs []error
	get := func(key string) int64 {
		v, err := p.Int64(key, 0)
		if err != nil {
			errs = append(errs, err)
		}
		return v
	}
	s := phaseSize{
		rawRecordCount: get(contract.PropRecordCount),
		opCount:        get(contract.PropOperationCount),
		insertStart:    get("insertstart"),
		hasInsertCount: p.Has("insertcount"),
	}
	if s.hasInsertCount {
		s.insertCount = get("insertcount")
	}
	return s, errs
}

// validate checks the sizes as YCSB 0.17.0 does and fills in recordCount
// and insertCount's default (recordcount - insertstart).
func (s *phaseSize) validate() error {
	// YCSB treats recordcount 0 as Integer.MAX_VALUE.
	s.recordCount = s.rawRecordCount
	if s.recordCount == 0 {
		s.recordCount = math.MaxInt32
	}
	if s.recordCount < 0 {
		return fmt.Errorf("recordcount: %d must not be negative", s.rawRecordCount)
	}
	if s.insertStart < 0 {
		return fmt.Errorf("insertstart: %d must not be negative", s.insertStart)
	}
	if !s.hasInsertCount {
		s.insertCount = s.recordCount - s.insertStart
	}
	if s.insertCount < 0 {
		return fmt.Errorf("insertcount: %d must not be negative", s.insertCount)
	}
	if s.recordCount < s.insertStart+s.insertCount {
		return fmt.Errorf("insertstart %d + insertcount %d exceed recordcount %d (YCSB: \"recordcount must be bigger than insertstart + insertcount\")",
			s.insertStart, s.insertCount, s.recordCount)
	}
	if s.opCount < 0 {
		return fmt.Errorf("operationcount: %d must not be negative", s.opCount)
	}
	return nil
}

// share is loader index's part of a validated phase among count loaders:
// the first key and number of records it inserts in the load phase, and
// its operations in the run phase (0: unlimited).
func (s phaseSize) share(index, count int) (loadStart, loadOps, runOps int64, err error) {
	if count < 1 || index < 0 || index >= count {
		return 0, 0, 0, fmt.Errorf("loader.index %d / loader.count %d: need 0 <= index < count", index, count)
	}
	if count == 1 {
		// YCSB's Client: the load does insertcount inserts if set, else
		// recordcount (raw: 0 means unlimited), starting at insertstart.
		loadOps = s.rawRecordCount
		if s.hasInsertCount {
			loadOps = s.insertCount
		}
		return s.insertStart, loadOps, s.opCount, nil
	}
	loadStart, loadOps = loadShare(s.insertStart, s.insertCount, index, count)
	_, runOps = loadShare(0, s.opCount, index, count)
	if s.opCount > 0 && runOps == 0 {
		// Zero would mean "unlimited" to the client.
		return 0, 0, 0, fmt.Errorf("operationcount %d is smaller than loader.count %d: loader %d has no operations", s.opCount, count, index)
	}
	return loadStart, loadOps, runOps, nil
}

// PhaseOperations is how many operations the loaders of a phase issue
// together, loader.count of them: the sum of each one's OperationCount,
// shared out as NewWorkload does. A load's are its records to insert (a
// warm-up's included); a run's are operationcount (a warm-up's come on
// top). 0 means unlimited: the phase ends at maxexecutiontime or a stop.
func PhaseOperations(p *Properties, phase Phase) (int64, error) {
	s, errs := readPhaseSize(p)
	count, err := p.Int(contract.PropLoaderCount, 1)
	if err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return 0, fmt.Errorf("workload properties: %w", errors.Join(errs...))
	}
	if err := s.validate(); err != nil {
		return 0, err
	}
	var total int64
	// At least once: share reports a loader.count below 1 as a loader would.
	for i := range max(count, 1) {
		_, load, run, err := s.share(i, count)
		if err != nil {
			return 0, err
		}
		if phase == PhaseLoad {
			total += load
		} else {
			total += run
		}
	}
	return total, nil
}

// PlannedOperations is what a phase's operation count becomes once its
// counted warm-up is added: a Run phase's warm-up operations come on top
// of operationcount (a Load's warm-up inserts are records of it), and a
// phase bounded by time (0) stays 0. One loader's share with its share of
// the warm-up, or the phase's total with the total warm-up: the loader's
// mongobench_loader_planned_operations and the manager's gauge both.
func PlannedOperations(phase Phase, operations, warmupOperations int64) int64 {
	if phase == PhaseRun && operations > 0 {
		return operations + warmupOperations
	}
	return operations
}
