package ycsb

// Op is a measured operation kind. Its String is YCSB's measurement name.
type Op uint8

// Operations, in the order reports print them (results.OperationOrder).
const (
	OpRead Op = iota
	OpUpdate
	OpInsert
	OpScan
	OpReadModifyWrite
	OpDelete
	OpVerify
	OpCleanup
	numOps
)

var opNames = [numOps]string{
	OpRead:            "READ",
	OpUpdate:          "UPDATE",
	OpInsert:          "INSERT",
	OpScan:            "SCAN",
	OpReadModifyWrite: "READ-MODIFY-WRITE",
	OpDelete:          "DELETE",
	OpVerify:          "VERIFY",
	OpCleanup:         "CLEANUP",
}

// failedNames are the names of the latency measurements of unsuccessful
// operations (YCSB's DBWrapper: "<OP>-FAILED").
var failedNames = func() (n [numOps]string) {
	for i, s := range opNames {
		n[i] = s + "-FAILED"
	}
	return n
}()

// String returns YCSB's name of the operation.
func (o Op) String() string {
	if o < numOps {
		return opNames[o]
	}
	return "UNKNOWN"
}

// FailedName returns the name of the operation's failure measurement.
func (o Op) FailedName() string {
	if o < numOps {
		return failedNames[o]
	}
	return "UNKNOWN-FAILED"
}

// Ops returns every operation kind in report order.
func Ops() []Op {
	ops := make([]Op, numOps)
	for i := range ops {
		ops[i] = Op(i)
	}
	return ops
}

// StatusCounts counts operations per Status.
type StatusCounts [numStatuses]int64

// Get returns the count for s.
func (c *StatusCounts) Get(s Status) int64 {
	if s < numStatuses {
		return c[s]
	}
	return 0
}

// Total returns the sum over all statuses.
func (c *StatusCounts) Total() int64 {
	var t int64
	for _, n := range c {
		t += n
	}
	return t
}

// add adds o into c.
func (c *StatusCounts) add(o *StatusCounts) {
	for i, n := range o {
		c[i] += n
	}
}
