package growth

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/results"
)

// Store is what the engine needs from the database: MongoStore is the real
// one; the tests have an in-memory one that can lose documents and die.
// Its methods are called concurrently by the engine's threads (Insert and
// Find) and must be safe for that.
type Store interface {
	// EnsureIndexes creates the workload's indexes ({number: 1},
	// {number1: 1}, {date: -1}); it is idempotent.
	EnsureIndexes(ctx context.Context) error
	// Insert writes documents in the insert mode: one (insertOne) or a
	// batch (insertMany).
	Insert(ctx context.Context, docs []bson.Raw) error
	// Find runs query q with filter and returns how many documents it
	// returned.
	Find(ctx context.Context, q *QuerySpec, filter bson.Raw) (int, error)
	// CollStats reads the collection's sizes.
	CollStats(ctx context.Context) (results.CollectionStats, error)

	// MaxID returns the highest _id in the collection; found is false when
	// the collection is empty. An _id that is not a whole number (not a
	// growth document) is an error.
	MaxID(ctx context.Context) (id int64, found bool, err error)
	// CountIDs counts the documents with from <= _id < to.
	CountIDs(ctx context.Context, from, to int64) (int64, error)
	// MissingIDs calls fn, in order, with every id in [from, to) that no
	// document has.
	MissingIDs(ctx context.Context, from, to int64, fn func(id int64) error) error
	// Repair inserts documents acknowledged (w:1, j:true), ignoring those
	// that exist already (duplicate keys).
	Repair(ctx context.Context, docs []bson.Raw) error

	// LoadState calls fn with every saved state document (id and JSON),
	// in the order of their ids.
	LoadState(ctx context.Context, fn func(id, data string) error) error
	// SaveState writes (replaces) a state document, acknowledged (w:1,
	// j:true).
	SaveState(ctx context.Context, id, data string) error
	// DeleteState removes a state document; a missing one is no error.
	DeleteState(ctx context.Context, id string) error
}

// QuerySpec is one query class as the store runs it: find(filter) with
// these options. The engine builds the filter ({number: v}, {number: v,
// number1: w} or {}).
type QuerySpec struct {
	// Name is results.OpQ1..OpQ4.
	Name string
	// Limit and Skip; SortDateDesc sorts by {date: -1}; Projection, when
	// not empty, returns these fields and not _id.
	Limit        int64
	Skip         int64
	SortDateDesc bool
	Projection   []string
}

// QuerySpecs are the configured query classes, in their order.
func (c *Config) QuerySpecs() []QuerySpec {
	specs := make([]QuerySpec, 0, len(c.Queries))
	for _, q := range c.Queries {
		s := QuerySpec{Name: q}
		switch q {
		case results.OpQ1:
			s.Limit = c.Q1Limit
		case results.OpQ2:
			s.Limit, s.Projection = c.Q2Limit, c.Q2Projection
		case results.OpQ3:
			s.Skip, s.Limit, s.SortDateDesc = c.Q3Skip, c.Q3Limit, true
		case results.OpQ4:
			s.Limit = c.Q4Limit
		}
		specs = append(specs, s)
	}
	return specs
}
