package growth

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/results"
)

// Defaults of the growth properties (contract.PropGrowth*).
const (
	DefaultTargetRecords   = 1_000_000
	DefaultInsertMode      = results.InsertAcknowledged
	DefaultBatchSize       = 1000
	DefaultInsertThreads   = 1
	DefaultQueryThreads    = 4
	DefaultQueryDuration   = 30 * time.Second
	DefaultMatchesPerValue = 10
	DefaultNumber1         = Number1Paired
	// DefaultPayloadSize makes a document 1,024 bytes of BSON
	// (DocumentSize).
	DefaultPayloadSize = 945
	DefaultDateStep    = time.Second
	DefaultDateJitter  = 10 * time.Second
	DefaultSeed        = 1
	DefaultQ1Limit     = 10
	DefaultQ2Limit     = 10
	DefaultQ3Skip      = 100
	DefaultQ3Limit     = 10
	DefaultQ4Limit     = 100
	// defaultCheckpoints is how many checkpoints growth.checkpointevery's
	// default makes: targetrecords/10, rounded up.
	defaultCheckpoints = 10
)

// DefaultDateStart is growth.datestart's default.
var DefaultDateStart = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// DefaultQ2Projection are the fields Q2 returns by default.
var DefaultQ2Projection = []string{FieldNumber, FieldNumber1}

// How number1 relates to number (growth.number1).
const (
	// Number1Paired: number1 is a fixed pseudo-random permutation of
	// number, so the documents that share a number share their number1
	// too: Q2's two equalities match the ~matchespervalue documents Q1's
	// one does, as the study's Q2 returned 10 documents. number1 is just
	// as uniform and selective on its own.
	Number1Paired = "paired"
	// Number1Independent: number1 is drawn independently of number. Two
	// equalities on random values would then match nothing, so Q2 takes
	// both values from a random inserted document: it matches that
	// document (and, rarely, another).
	Number1Independent = "independent"
)

// Limits of the settings.
const (
	// MaxPayloadSize keeps a document well below MongoDB's 16 MiB.
	MaxPayloadSize = 1 << 20
	// MaxBatchSize is MongoDB's maxWriteBatchSize.
	MaxBatchSize = 100_000
	// MaxThreads bounds insert and query threads.
	MaxThreads = 1024
)

// Config is a Grow phase's workload: the documents, the checkpoints, the
// inserts and the queries. FromProperties reads it from the loader's
// properties; Properties writes it back.
type Config struct {
	// TargetRecords is the number of documents to grow the collection to.
	TargetRecords int64
	// CheckpointEvery is the number of records between checkpoints; the
	// last checkpoint is at TargetRecords.
	CheckpointEvery int64
	// InsertMode is results.InsertUnacknowledged, InsertAcknowledged or
	// InsertBatch.
	InsertMode string
	// BatchSize is insertMany's size in batch mode (1 otherwise).
	BatchSize     int
	InsertThreads int
	QueryThreads  int
	QueryDuration time.Duration
	// Queries are the classes run at each checkpoint, in order, among
	// results.GrowthQueryOps.
	Queries []string
	// Query parameters.
	Q1Limit      int64
	Q2Limit      int64
	Q2Projection []string
	Q3Skip       int64
	Q3Limit      int64
	Q4Limit      int64
	// Documents shape the data.
	Documents DocumentConfig
}

// DocumentConfig shapes the documents (Generator).
type DocumentConfig struct {
	Seed uint64
	// MatchesPerValue is how many documents each value of number (and
	// number1) matches at TargetRecords: N = ceil(TargetRecords /
	// MatchesPerValue) values.
	MatchesPerValue int64
	// Number1 is Number1Paired or Number1Independent.
	Number1     string
	PayloadSize int
	// The date of record i is DateStart + i·DateStep + a jitter in
	// [0, DateJitter), at millisecond precision (BSON dates).
	DateStart  time.Time
	DateStep   time.Duration
	DateJitter time.Duration
}

// Property is one growth property: a row of `loader grow -h`.
type Property struct {
	Name    string
	Default string
	Meaning string
}

// KnownProperties are the growth properties with their defaults and
// meanings, in the order of `loader grow -h`. FromProperties reads exactly
// these (TestKnownPropertiesAreRead).
func KnownProperties() []Property {
	d := func(v time.Duration) string { return v.String() }
	i := func(v int64) string { return strconv.FormatInt(v, 10) }
	return []Property{
		{contract.PropGrowthTargetRecords, i(DefaultTargetRecords), "documents to grow the collection to"},
		{contract.PropGrowthCheckpointEvery, "targetrecords/10",
			fmt.Sprintf("records between checkpoints (rounded up; the last is at targetrecords; at most %d checkpoints)",
				results.MaxGrowthCheckpoints)},
		{contract.PropGrowthInsertMode, DefaultInsertMode,
			"unacknowledged (insertOne, w:0) | acknowledged (insertOne, w:1 j:true) | batch (unordered insertMany, w:1 j:true)"},
		{contract.PropGrowthBatchSize, i(DefaultBatchSize), "documents per insertMany in batch mode (ignored in the other modes)"},
		{contract.PropGrowthInsertThreads, i(DefaultInsertThreads), "threads inserting (the study: 1)"},
		{contract.PropGrowthQueryThreads, i(DefaultQueryThreads), "threads running each query class at a checkpoint"},
		{contract.PropGrowthQueryDuration, d(DefaultQueryDuration), "how long each query class runs at each checkpoint (a Go duration)"},
		{contract.PropGrowthQueries, "q1,q2,q3,q4", "query classes run at each checkpoint, in order (empty: none)"},
		{contract.PropGrowthQ1Limit, i(DefaultQ1Limit), "Q1: find({number: v}).limit(n)"},
		{contract.PropGrowthQ2Limit, i(DefaultQ2Limit), "Q2: find({number: v, number1: w}, projection).limit(n)"},
		{contract.PropGrowthQ2Projection, strings.Join(DefaultQ2Projection, ","), "Q2: the fields returned (_id excluded)"},
		{contract.PropGrowthQ3Skip, i(DefaultQ3Skip), "Q3: find({number: v}).sort({date: -1}).skip(n)..."},
		{contract.PropGrowthQ3Limit, i(DefaultQ3Limit), "Q3: ...limit(n)"},
		{contract.PropGrowthQ4Limit, i(DefaultQ4Limit), "Q4: find({}).limit(n)"},
		{contract.PropGrowthMatchesPerValue, i(DefaultMatchesPerValue),
			"documents each value of number (and number1) matches at targetrecords: values are uniform in [0, ceil(targetrecords/this))"},
		{contract.PropGrowthNumber1, DefaultNumber1,
			"paired (number1 is a fixed permutation of number: Q2 matches Q1's documents) | independent (Q2 takes a document's values)"},
		{contract.PropGrowthPayloadSize, i(DefaultPayloadSize),
			fmt.Sprintf("bytes of each document's payload string (%d: %d-byte documents)", DefaultPayloadSize, DocumentSize(DefaultPayloadSize))},
		{contract.PropGrowthDateStart, DefaultDateStart.Format(time.RFC3339), "date of record 0 (RFC 3339)"},
		{contract.PropGrowthDateStep, d(DefaultDateStep), "date increase per record"},
		{contract.PropGrowthDateJitter, d(DefaultDateJitter), "each date is later by a jitter in [0, this)"},
		{contract.PropGrowthSeed, i(DefaultSeed), "seed of documents and query values: the same seed, the same data"},
	}
}

// FromProperties reads the growth properties through get (the loader's
// property lookup: a value and whether it is set). Every problem is
// reported, joined.
func FromProperties(get func(string) (string, bool)) (Config, error) {
	r := propReader{get: get}
	c := Config{
		TargetRecords: r.int64(contract.PropGrowthTargetRecords, DefaultTargetRecords, 1, math.MaxInt64/2),
		InsertMode:    r.enum(contract.PropGrowthInsertMode, DefaultInsertMode, results.InsertUnacknowledged, results.InsertAcknowledged, results.InsertBatch),
		InsertThreads: int(r.int64(contract.PropGrowthInsertThreads, DefaultInsertThreads, 1, MaxThreads)),
		QueryThreads:  int(r.int64(contract.PropGrowthQueryThreads, DefaultQueryThreads, 1, MaxThreads)),
		QueryDuration: r.duration(contract.PropGrowthQueryDuration, DefaultQueryDuration),
		Q1Limit:       r.int64(contract.PropGrowthQ1Limit, DefaultQ1Limit, 1, math.MaxInt32),
		Q2Limit:       r.int64(contract.PropGrowthQ2Limit, DefaultQ2Limit, 1, math.MaxInt32),
		Q3Skip:        r.int64(contract.PropGrowthQ3Skip, DefaultQ3Skip, 0, math.MaxInt32),
		Q3Limit:       r.int64(contract.PropGrowthQ3Limit, DefaultQ3Limit, 1, math.MaxInt32),
		Q4Limit:       r.int64(contract.PropGrowthQ4Limit, DefaultQ4Limit, 1, math.MaxInt32),
		Documents: DocumentConfig{
			MatchesPerValue: r.int64(contract.PropGrowthMatchesPerValue, DefaultMatchesPerValue, 1, math.MaxInt64/2),
			Number1:         r.enum(contract.PropGrowthNumber1, DefaultNumber1, Number1Paired, Number1Independent),
			PayloadSize:     int(r.int64(contract.PropGrowthPayloadSize, DefaultPayloadSize, 0, MaxPayloadSize)),
			DateStart:       r.time(contract.PropGrowthDateStart, DefaultDateStart),
			DateStep:        r.duration(contract.PropGrowthDateStep, DefaultDateStep),
			DateJitter:      r.duration(contract.PropGrowthDateJitter, DefaultDateJitter),
			Seed:            r.uint64(contract.PropGrowthSeed, DefaultSeed),
		},
	}
	defEvery := (c.TargetRecords + defaultCheckpoints - 1) / defaultCheckpoints
	c.CheckpointEvery = r.int64(contract.PropGrowthCheckpointEvery, max(defEvery, 1), 1, math.MaxInt64/2)
	c.BatchSize = int(r.int64(contract.PropGrowthBatchSize, DefaultBatchSize, 1, MaxBatchSize))
	c.Queries = r.queries(contract.PropGrowthQueries)
	c.Q2Projection = r.fields(contract.PropGrowthQ2Projection, DefaultQ2Projection)
	if len(r.errs) > 0 {
		return c, fmt.Errorf("growth properties: %w", errors.Join(r.errs...))
	}
	if c.InsertMode != results.InsertBatch {
		// Batches are batch mode's; the property is ignored otherwise (a
		// Job builder may pass it whatever the mode).
		c.BatchSize = 1
	}
	if err := c.Validate(); err != nil {
		return c, fmt.Errorf("growth properties: %w", err)
	}
	return c, nil
}

// Validate checks what no single property can: the number of checkpoints,
// the query duration when queries run, dates that stay within BSON's range.
func (c *Config) Validate() error {
	var errs []error
	if n := Checkpoints(c.TargetRecords, c.CheckpointEvery); n > results.MaxGrowthCheckpoints {
		errs = append(errs, fmt.Errorf("%d records every %d make %d checkpoints, at most %d allowed: raise %s",
			c.TargetRecords, c.CheckpointEvery, n, results.MaxGrowthCheckpoints, contract.PropGrowthCheckpointEvery))
	}
	if c.CheckpointEvery > c.TargetRecords {
		errs = append(errs, fmt.Errorf("%s %d is more than %s %d", contract.PropGrowthCheckpointEvery, c.CheckpointEvery,
			contract.PropGrowthTargetRecords, c.TargetRecords))
	}
	if len(c.Queries) > 0 && c.QueryDuration <= 0 {
		errs = append(errs, fmt.Errorf("%s %v must be positive when queries run", contract.PropGrowthQueryDuration, c.QueryDuration))
	}
	d := c.Documents
	if d.DateStep < 0 || d.DateJitter < 0 || d.DateStep%time.Millisecond != 0 || d.DateJitter%time.Millisecond != 0 {
		errs = append(errs, fmt.Errorf("%s %v and %s %v must be whole, non-negative milliseconds (BSON dates are milliseconds)",
			contract.PropGrowthDateStep, d.DateStep, contract.PropGrowthDateJitter, d.DateJitter))
	} else if step := d.DateStep.Milliseconds(); step > 0 && c.TargetRecords > (maxDateMillis-d.DateStart.UnixMilli()-d.DateJitter.Milliseconds())/step {
		errs = append(errs, fmt.Errorf("the dates of %d records %v apart from %s run past the year 9999",
			c.TargetRecords, d.DateStep, d.DateStart.Format(time.RFC3339)))
	}
	return errors.Join(errs...)
}

// maxDateMillis is 9999-12-31T23:59:59.999Z, the last date every driver
// and tool can print.
const maxDateMillis = 253402300799999

// Values is N: number and number1 are uniform in [0, N).
func (c *Config) Values() int64 {
	return (c.TargetRecords + c.Documents.MatchesPerValue - 1) / c.Documents.MatchesPerValue
}

// Properties is the configuration as the loader's properties, every one
// set, in canonical form: what FromProperties reads back into an equal
// Config. A resumed phase compares them with those it started with.
func (c *Config) Properties() map[string]string {
	i := func(v int64) string { return strconv.FormatInt(v, 10) }
	queries := make([]string, len(c.Queries))
	for k, q := range c.Queries {
		queries[k] = strings.ToLower(q)
	}
	d := c.Documents
	return map[string]string{
		contract.PropGrowthTargetRecords:   i(c.TargetRecords),
		contract.PropGrowthCheckpointEvery: i(c.CheckpointEvery),
		contract.PropGrowthInsertMode:      c.InsertMode,
		contract.PropGrowthBatchSize:       i(int64(c.BatchSize)),
		contract.PropGrowthInsertThreads:   i(int64(c.InsertThreads)),
		contract.PropGrowthQueryThreads:    i(int64(c.QueryThreads)),
		contract.PropGrowthQueryDuration:   c.QueryDuration.String(),
		contract.PropGrowthQueries:         strings.Join(queries, ","),
		contract.PropGrowthQ1Limit:         i(c.Q1Limit),
		contract.PropGrowthQ2Limit:         i(c.Q2Limit),
		contract.PropGrowthQ2Projection:    strings.Join(c.Q2Projection, ","),
		contract.PropGrowthQ3Skip:          i(c.Q3Skip),
		contract.PropGrowthQ3Limit:         i(c.Q3Limit),
		contract.PropGrowthQ4Limit:         i(c.Q4Limit),
		contract.PropGrowthMatchesPerValue: i(d.MatchesPerValue),
		contract.PropGrowthNumber1:         d.Number1,
		contract.PropGrowthPayloadSize:     i(int64(d.PayloadSize)),
		contract.PropGrowthDateStart:       d.DateStart.UTC().Format(time.RFC3339Nano),
		contract.PropGrowthDateStep:        d.DateStep.String(),
		contract.PropGrowthDateJitter:      d.DateJitter.String(),
		contract.PropGrowthSeed:            strconv.FormatUint(d.Seed, 10),
	}
}

// propReader reads properties and collects their errors.
type propReader struct {
	get  func(string) (string, bool)
	errs []error
}

func (r *propReader) value(key string) (string, bool) {
	v, ok := r.get(key)
	return strings.TrimSpace(v), ok
}

func (r *propReader) fail(key, v, format string, args ...any) {
	r.errs = append(r.errs, fmt.Errorf("%s: %q %s", key, v, fmt.Sprintf(format, args...)))
}

func (r *propReader) int64(key string, def, lo, hi int64) int64 {
	v, ok := r.value(key)
	if !ok {
		return def
	}
	n, err := strconv.ParseInt(strings.ReplaceAll(v, "_", ""), 10, 64)
	if err != nil {
		r.fail(key, v, "is not a whole number")
		return def
	}
	if n < lo || n > hi {
		r.fail(key, v, "must be from %d to %d", lo, hi)
		return def
	}
	return n
}

func (r *propReader) uint64(key string, def uint64) uint64 {
	v, ok := r.value(key)
	if !ok {
		return def
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		r.fail(key, v, "is not a whole, non-negative number")
		return def
	}
	return n
}

func (r *propReader) duration(key string, def time.Duration) time.Duration {
	v, ok := r.value(key)
	if !ok {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		r.fail(key, v, "is not a duration (30s, 500ms, 2m)")
		return def
	}
	if d < 0 {
		r.fail(key, v, "must not be negative")
		return def
	}
	return d
}

func (r *propReader) time(key string, def time.Time) time.Time {
	v, ok := r.value(key)
	if !ok {
		return def
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		r.fail(key, v, "is not an RFC 3339 time (2024-01-01T00:00:00Z)")
		return def
	}
	return t.UTC()
}

func (r *propReader) enum(key, def string, values ...string) string {
	v, ok := r.value(key)
	if !ok {
		return def
	}
	if i := slices.IndexFunc(values, func(s string) bool { return strings.EqualFold(s, v) }); i >= 0 {
		return values[i]
	}
	r.fail(key, v, "is not one of %s", strings.Join(values, ", "))
	return def
}

// queries reads the query classes: q1..q4 in any case and order (run in
// that order), each at most once; empty means none.
func (r *propReader) queries(key string) []string {
	v, ok := r.value(key)
	if !ok {
		return slices.Clone(results.GrowthQueryOps)
	}
	var out []string
	for _, item := range strings.Split(v, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		i := slices.IndexFunc(results.GrowthQueryOps, func(s string) bool { return strings.EqualFold(s, item) })
		if i < 0 {
			r.fail(key, v, "names %q, not one of q1, q2, q3, q4", item)
			return nil
		}
		if slices.Contains(out, results.GrowthQueryOps[i]) {
			r.fail(key, v, "names %s twice", item)
			return nil
		}
		out = append(out, results.GrowthQueryOps[i])
	}
	return out
}

// fields reads a comma-separated list of field names.
func (r *propReader) fields(key string, def []string) []string {
	v, ok := r.value(key)
	if !ok {
		return slices.Clone(def)
	}
	var out []string
	for _, f := range strings.Split(v, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if strings.HasPrefix(f, "$") || strings.ContainsRune(f, 0) {
			r.fail(key, v, "has field %q: not a field name", f)
			return nil
		}
		out = append(out, f)
	}
	if len(out) == 0 {
		r.fail(key, v, "names no field")
		return nil
	}
	return out
}
