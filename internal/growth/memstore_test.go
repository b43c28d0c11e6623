package growth

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sort"
	"sync"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/results"
)

// memStore is an in-memory Store for the engine's tests: documents by _id
// with number, number1 and date, and the state documents. Faults are
// injected through the hooks and the dead switch.
type memStore struct {
	mu    sync.Mutex
	docs  map[int64]memDoc
	state map[string]string
	// byNumber indexes the documents by number.
	byNumber map[int64][]int64

	// beforeInsert, when set, runs before an insert is applied, with the
	// store unlocked; an error fails the insert (nothing applied).
	beforeInsert func(first int64, n int) error
	// afterFind runs after each find (unlocked).
	afterFind func(q *QuerySpec, filter bson.Raw, n int)
	// dead makes every call fail without effect: the loader's process is
	// gone (nothing it sends arrives).
	dead bool
	// inserted counts the documents inserted (not repaired).
	inserted int64
	// indexCalls counts EnsureIndexes.
	indexCalls int
}

type memDoc struct {
	number, number1, date int64
}

var errDead = errors.New("the loader is dead")

func newMemStore() *memStore {
	return &memStore{docs: map[int64]memDoc{}, state: map[string]string{}, byNumber: map[int64][]int64{}}
}

func (m *memStore) kill() {
	m.mu.Lock()
	m.dead = true
	m.mu.Unlock()
}

func (m *memStore) revive() {
	m.mu.Lock()
	m.dead = false
	m.beforeInsert, m.afterFind = nil, nil
	m.mu.Unlock()
}

func (m *memStore) EnsureIndexes(context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.dead {
		return errDead
	}
	m.indexCalls++
	return nil
}

func (m *memStore) add(raw bson.Raw) error {
	id := raw.Lookup(FieldID).Int64()
	if _, ok := m.docs[id]; ok {
		return errors.New("duplicate key")
	}
	d := memDoc{number: raw.Lookup(FieldNumber).Int64(), number1: raw.Lookup(FieldNumber1).Int64(),
		date: raw.Lookup(FieldDate).DateTime()}
	m.docs[id] = d
	m.byNumber[d.number] = append(m.byNumber[d.number], id)
	return nil
}

func (m *memStore) remove(id int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	d, ok := m.docs[id]
	if !ok {
		return
	}
	delete(m.docs, id)
	m.byNumber[d.number] = slices.DeleteFunc(m.byNumber[d.number], func(x int64) bool { return x == id })
}

func (m *memStore) Insert(ctx context.Context, docs []bson.Raw) error {
	m.mu.Lock()
	hook := m.beforeInsert
	m.mu.Unlock()
	if hook != nil {
		if err := hook(docs[0].Lookup(FieldID).Int64(), len(docs)); err != nil {
			return err
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.dead {
		return errDead
	}
	for _, d := range docs {
		if err := m.add(d); err != nil {
			return err
		}
		m.inserted++
	}
	return nil
}

// matching returns the ids a filter matches.
func (m *memStore) matching(filter bson.Raw) []int64 {
	v, ok := filter.Lookup(FieldNumber).Int64OK()
	if !ok {
		ids := slices.Collect(maps.Keys(m.docs))
		slices.Sort(ids)
		return ids
	}
	var ids []int64
	w, both := filter.Lookup(FieldNumber1).Int64OK()
	for _, id := range m.byNumber[v] {
		if !both || m.docs[id].number1 == w {
			ids = append(ids, id)
		}
	}
	return ids
}

func (m *memStore) Find(ctx context.Context, q *QuerySpec, filter bson.Raw) (int, error) {
	m.mu.Lock()
	if m.dead {
		m.mu.Unlock()
		return 0, errDead
	}
	ids := m.matching(filter)
	if q.SortDateDesc {
		sort.SliceStable(ids, func(a, b int) bool { return m.docs[ids[a]].date > m.docs[ids[b]].date })
	}
	hook := m.afterFind
	m.mu.Unlock()
	n := max(0, min(int64(len(ids))-q.Skip, q.Limit))
	if hook != nil {
		hook(q, filter, int(n))
	}
	return int(n), ctx.Err()
}

func (m *memStore) CollStats(context.Context) (results.CollectionStats, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.dead {
		return results.CollectionStats{}, errDead
	}
	n := int64(len(m.docs))
	return results.CollectionStats{Source: "memory", CollectionSizes: results.CollectionSizes{Count: &n}}, nil
}

func (m *memStore) MaxID(context.Context) (int64, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.dead {
		return 0, false, errDead
	}
	if len(m.docs) == 0 {
		return 0, false, nil
	}
	return slices.Max(slices.Collect(maps.Keys(m.docs))), true, nil
}

func (m *memStore) CountIDs(_ context.Context, from, to int64) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var n int64
	for id := range m.docs {
		if id >= from && id < to {
			n++
		}
	}
	return n, nil
}

func (m *memStore) MissingIDs(_ context.Context, from, to int64, fn func(int64) error) error {
	var missing []int64
	m.mu.Lock()
	for id := from; id < to; id++ {
		if _, ok := m.docs[id]; !ok {
			missing = append(missing, id)
		}
	}
	m.mu.Unlock()
	for _, id := range missing {
		if err := fn(id); err != nil {
			return err
		}
	}
	return nil
}

func (m *memStore) Repair(_ context.Context, docs []bson.Raw) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, d := range docs {
		_ = m.add(d) // duplicates ignored
	}
	return nil
}

func (m *memStore) LoadState(_ context.Context, fn func(id, data string) error) error {
	m.mu.Lock()
	if m.dead {
		m.mu.Unlock()
		return errDead
	}
	state := maps.Clone(m.state)
	m.mu.Unlock()
	for _, id := range slices.Sorted(maps.Keys(state)) {
		if err := fn(id, state[id]); err != nil {
			return err
		}
	}
	return nil
}

func (m *memStore) SaveState(_ context.Context, id, data string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.dead {
		return errDead
	}
	m.state[id] = data
	return nil
}

func (m *memStore) DeleteState(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.dead {
		return errDead
	}
	delete(m.state, id)
	return nil
}
