package ycsb

import "context"

// Status is the outcome of one database operation, with YCSB's names
// (site.ycsb.Status). The name appears in the report as "Return=<name>".
type Status uint8

// Statuses, in YCSB's vocabulary.
const (
	StatusOK Status = iota
	StatusError
	StatusNotFound
	StatusNotImplemented
	StatusUnexpectedState
	StatusBadRequest
	StatusForbidden
	StatusServiceUnavailable
	StatusBatchedOK
	numStatuses
)

var statusNames = [numStatuses]string{
	StatusOK:                 "OK",
	StatusError:              "ERROR",
	StatusNotFound:           "NOT_FOUND",
	StatusNotImplemented:     "NOT_IMPLEMENTED",
	StatusUnexpectedState:    "UNEXPECTED_STATE",
	StatusBadRequest:         "BAD_REQUEST",
	StatusForbidden:          "FORBIDDEN",
	StatusServiceUnavailable: "SERVICE_UNAVAILABLE",
	StatusBatchedOK:          "BATCHED_OK",
}

// String returns YCSB's name of the status.
func (s Status) String() string {
	if s < numStatuses {
		return statusNames[s]
	}
	return "UNKNOWN"
}

// IsOK reports whether the operation succeeded; like YCSB, a buffered insert
// (BATCHED_OK) counts as a success.
func (s Status) IsOK() bool { return s == StatusOK || s == StatusBatchedOK }

// Field is one field of a record. Both slices are owned by the caller and are
// valid only for the duration of the call: a binding that keeps them (for a
// batch) must copy them.
type Field struct {
	Name  string
	Value []byte
}

// DB is one worker thread's connection to the database under test, the Go
// counterpart of site.ycsb.DB. A DB is used by exactly one goroutine, so an
// implementation may keep per-thread buffers without locking. Keys and field
// values are passed as byte slices owned by the caller so the hot path does
// not allocate a string per operation.
type DB interface {
	// Read fetches one record. fields == nil means all fields. When result is
	// not nil the binding appends the fields it read (for data integrity
	// checks); otherwise it may skip decoding them.
	Read(ctx context.Context, table string, key []byte, fields []string, result *[]Field) Status
	// Scan reads up to count records in key order starting at startKey.
	Scan(ctx context.Context, table string, startKey []byte, count int, fields []string) Status
	// Update sets the given fields of an existing record.
	Update(ctx context.Context, table string, key []byte, values []Field) Status
	// Insert adds a record. With batching a binding may buffer it and return
	// StatusBatchedOK.
	Insert(ctx context.Context, table string, key []byte, values []Field) Status
	// Delete removes a record.
	Delete(ctx context.Context, table string, key []byte) Status
	// Cleanup is called once when the thread finishes. It must flush any
	// buffered inserts (YCSB loses the trailing partial batch; we do not) and
	// report how many buffered inserts failed to be written.
	Cleanup(ctx context.Context) (failedBufferedInserts int, err error)
}

// DBFactory opens the DB for worker thread i (0-based) of n.
type DBFactory func(ctx context.Context, thread, threads int) (DB, error)
