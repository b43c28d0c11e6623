package memdb

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/mongobench/mongobench/internal/ycsb"
)

// Hook, when set, runs before every call. If it returns handled=true the
// call returns st without touching the store (for injected failures or
// blocking until ctx is done); otherwise the call proceeds.
type Hook func(ctx context.Context, op ycsb.Op, key []byte) (st ycsb.Status, handled bool)

// Options configures the DBs a Store hands out.
type Options struct {
	Hook Hook
	// BatchSize > 1 buffers inserts per DB (returning BATCHED_OK) and
	// writes them when the batch is full and in Cleanup, like the MongoDB
	// binding with batchsize.
	BatchSize int
	// FailFlush makes Cleanup's flush fail: the buffered inserts are
	// dropped and reported as failed.
	FailFlush bool
}

// Store is a thread-safe table of records shared by all DBs it hands out.
type Store struct {
	opts Options

	mu      sync.RWMutex
	records map[string]map[string][]byte
	keys    []string // sorted, for scans

	calls    [16]atomic.Int64 // by ycsb.Op
	notFound atomic.Int64
	dupes    atomic.Int64
}

// New returns an empty store.
func New(opts Options) *Store {
	return &Store{opts: opts, records: make(map[string]map[string][]byte)}
}

// Factory returns a ycsb.DBFactory handing out DBs on this store.
func (s *Store) Factory() ycsb.DBFactory {
	return func(context.Context, int, int) (ycsb.DB, error) { return &DB{s: s}, nil }
}

// Len returns the number of records.
func (s *Store) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.records)
}

// Record returns a copy of a record's fields.
func (s *Store) Record(key string) (map[string][]byte, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	r, ok := s.records[key]
	if !ok {
		return nil, false
	}
	out := make(map[string][]byte, len(r))
	for k, v := range r {
		out[k] = slices.Clone(v)
	}
	return out, true
}

// Keys returns every key in order.
func (s *Store) Keys() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return slices.Clone(s.keys)
}

// Calls returns how many calls of op reached the store (hooked calls
// included).
func (s *Store) Calls(op ycsb.Op) int64 { return s.calls[op].Load() }

// NotFound returns how many reads, scans, updates and deletes found nothing.
func (s *Store) NotFound() int64 { return s.notFound.Load() }

// Duplicates returns how many inserts hit an existing key.
func (s *Store) Duplicates() int64 { return s.dupes.Load() }

func (s *Store) insert(key string, values []ycsb.Field) ycsb.Status {
	rec := make(map[string][]byte, len(values))
	for _, f := range values {
		rec[f.Name] = slices.Clone(f.Value)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.records[key]; ok {
		s.dupes.Add(1)
		return ycsb.StatusError // duplicate _id, as MongoDB's insertOne
	}
	s.records[key] = rec
	i := sort.SearchStrings(s.keys, key)
	s.keys = slices.Insert(s.keys, i, key)
	return ycsb.StatusOK
}

// DB is one thread's connection to a Store.
type DB struct {
	s     *Store
	batch []batched
}

type batched struct {
	key    string
	values []ycsb.Field
}

var _ ycsb.DB = (*DB)(nil)

func (d *DB) hook(ctx context.Context, op ycsb.Op, key []byte) (ycsb.Status, bool) {
	d.s.calls[op].Add(1)
	if d.s.opts.Hook == nil {
		return ycsb.StatusOK, false
	}
	return d.s.opts.Hook(ctx, op, key)
}

// Read implements ycsb.DB.
func (d *DB) Read(ctx context.Context, _ string, key []byte, fields []string, result *[]ycsb.Field) ycsb.Status {
	if st, ok := d.hook(ctx, ycsb.OpRead, key); ok {
		return st
	}
	d.s.mu.RLock()
	defer d.s.mu.RUnlock()
	rec, ok := d.s.records[string(key)]
	if !ok {
		d.s.notFound.Add(1)
		return ycsb.StatusNotFound
	}
	if result != nil {
		if fields == nil {
			names := make([]string, 0, len(rec))
			for n := range rec {
				names = append(names, n)
			}
			sort.Strings(names)
			fields = names
		}
		for _, f := range fields {
			if v, ok := rec[f]; ok {
				*result = append(*result, ycsb.Field{Name: f, Value: v})
			}
		}
	}
	return ycsb.StatusOK
}

// Scan implements ycsb.DB.
func (d *DB) Scan(ctx context.Context, _ string, startKey []byte, count int, _ []string) ycsb.Status {
	if st, ok := d.hook(ctx, ycsb.OpScan, startKey); ok {
		return st
	}
	d.s.mu.RLock()
	defer d.s.mu.RUnlock()
	i := sort.SearchStrings(d.s.keys, string(startKey))
	if i == len(d.s.keys) || count <= 0 {
		d.s.notFound.Add(1)
		return ycsb.StatusNotFound
	}
	return ycsb.StatusOK
}

// Update implements ycsb.DB.
func (d *DB) Update(ctx context.Context, _ string, key []byte, values []ycsb.Field) ycsb.Status {
	if st, ok := d.hook(ctx, ycsb.OpUpdate, key); ok {
		return st
	}
	d.s.mu.Lock()
	defer d.s.mu.Unlock()
	rec, ok := d.s.records[string(key)]
	if !ok {
		d.s.notFound.Add(1)
		return ycsb.StatusNotFound
	}
	for _, f := range values {
		rec[f.Name] = slices.Clone(f.Value)
	}
	return ycsb.StatusOK
}

// Insert implements ycsb.DB.
func (d *DB) Insert(ctx context.Context, _ string, key []byte, values []ycsb.Field) ycsb.Status {
	if st, ok := d.hook(ctx, ycsb.OpInsert, key); ok {
		return st
	}
	if d.s.opts.BatchSize <= 1 {
		return d.s.insert(string(key), values)
	}
	// The caller's buffers are reused after the call: copy.
	b := batched{key: string(key), values: make([]ycsb.Field, len(values))}
	for i, f := range values {
		b.values[i] = ycsb.Field{Name: f.Name, Value: slices.Clone(f.Value)}
	}
	d.batch = append(d.batch, b)
	if len(d.batch) < d.s.opts.BatchSize {
		return ycsb.StatusBatchedOK
	}
	if d.flush() > 0 {
		return ycsb.StatusError
	}
	return ycsb.StatusOK
}

// flush writes the batch and returns how many inserts failed.
func (d *DB) flush() int {
	failed := 0
	for _, b := range d.batch {
		if !d.s.insert(b.key, b.values).IsOK() {
			failed++
		}
	}
	d.batch = d.batch[:0]
	return failed
}

// Delete implements ycsb.DB.
func (d *DB) Delete(ctx context.Context, _ string, key []byte) ycsb.Status {
	if st, ok := d.hook(ctx, ycsb.OpDelete, key); ok {
		return st
	}
	d.s.mu.Lock()
	defer d.s.mu.Unlock()
	if _, ok := d.s.records[string(key)]; !ok {
		d.s.notFound.Add(1)
		return ycsb.StatusNotFound
	}
	delete(d.s.records, string(key))
	i := sort.SearchStrings(d.s.keys, string(key))
	d.s.keys = slices.Delete(d.s.keys, i, i+1)
	return ycsb.StatusOK
}

// ErrFlush is returned by Cleanup when Options.FailFlush is set.
var ErrFlush = errors.New("memdb: flush failed")

// Cleanup implements ycsb.DB: it flushes buffered inserts.
func (d *DB) Cleanup(ctx context.Context) (int, error) {
	if len(d.batch) == 0 {
		return 0, nil
	}
	if d.s.opts.FailFlush {
		n := len(d.batch)
		d.batch = nil
		return n, fmt.Errorf("flush %d buffered inserts: %w", n, ErrFlush)
	}
	if failed := d.flush(); failed > 0 {
		return failed, fmt.Errorf("flush: %d inserts failed", failed)
	}
	return 0, nil
}
