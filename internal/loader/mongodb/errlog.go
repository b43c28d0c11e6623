package mongodb

import (
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/mongobench/mongobench/internal/ycsb"
)

// maxPrintedErrors bounds the failed operations printed to the log. YCSB
// prints every exception, which at thousands of failures per second costs
// more than the operations and buries the report; the counts are in the
// report anyway.
const maxPrintedErrors = 20

// errorLog prints the first failed operations of a process (all threads)
// and remembers the first error, which becomes part of the fatal message
// when a load ends incomplete. Only failures touch it, never the hot path
// of a successful operation.
type errorLog struct {
	w     io.Writer
	limit int64
	n     atomic.Int64

	mu    sync.Mutex
	first string
}

func newErrorLog(w io.Writer) *errorLog {
	if w == nil {
		w = io.Discard
	}
	return &errorLog{w: w, limit: maxPrintedErrors}
}

// record logs one failed operation on key.
func (l *errorLog) record(op ycsb.Op, key []byte, err error) {
	l.recordf(op, key, "%v", err)
}

// recordf logs one unsuccessful operation with a formatted reason.
func (l *errorLog) recordf(op ycsb.Op, key []byte, format string, args ...any) {
	n := l.n.Add(1)
	if n > l.limit+1 {
		return
	}
	msg := fmt.Sprintf("%s %s: "+format, append([]any{op, key}, args...)...)
	if n == 1 {
		l.mu.Lock()
		l.first = msg
		l.mu.Unlock()
	}
	if n <= l.limit {
		_, _ = fmt.Fprintf(l.w, "mongodb: %s\n", msg)
	} else {
		_, _ = fmt.Fprintf(l.w, "mongodb: more than %d unsuccessful operations; not printing further ones (the report counts them)\n", l.limit)
	}
}

// First returns the first recorded failure ("" if none) and how many there
// were.
func (l *errorLog) First() (string, int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.first, l.n.Load()
}
