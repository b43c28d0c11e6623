package telemetry

import (
	"encoding/hex"
	"math"
	"strconv"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Opt is a number read from serverStatus that may be absent: Valid is false
// when the field was missing or not a finite number, and V is then 0 and
// means nothing.
type Opt[T int64 | float64] struct {
	V     T
	Valid bool
}

// Get returns the value and whether it is present.
func (o Opt[T]) Get() (T, bool) { return o.V, o.Valid }

func some[T int64 | float64](v T) Opt[T] { return Opt[T]{V: v, Valid: true} }

// Counter is a cumulative serverStatus counter: it only grows while the
// process runs and starts again from zero when it restarts. A series holds
// its increase per interval (and so its rate).
type Counter int

// Counters, in the order of series and tables.
const (
	CounterInsert  Counter = iota // opcounters.insert
	CounterQuery                  // opcounters.query
	CounterUpdate                 // opcounters.update
	CounterDelete                 // opcounters.delete
	CounterGetmore                // opcounters.getmore
	CounterCommand                // opcounters.command
	// CounterNetIn and CounterNetOut are network.bytesIn and bytesOut.
	CounterNetIn
	CounterNetOut
	// CounterEvictedByApp counts the pages application threads evicted:
	// eviction work the cache pushed onto operations because the eviction
	// threads could not keep up. It is read from one statistic or two,
	// depending on the server (see EvictionSource).
	CounterEvictedByApp
	// CounterConnectionsCreated is connections.totalCreated.
	CounterConnectionsCreated
	// NumCounters is the number of counters.
	NumCounters
)

// OpCounters are the opcounters, in mongostat's order.
var OpCounters = []Counter{CounterInsert, CounterQuery, CounterUpdate, CounterDelete, CounterGetmore, CounterCommand}

// Gauge is an instantaneous serverStatus value (or one derived from such
// values in the same sample). A series holds its mean, minimum and maximum
// per interval.
type Gauge int

// Gauges, in the order of series and tables.
const (
	GaugeConnections     Gauge = iota // connections.current
	GaugeCacheBytes                   // wiredTiger.cache["bytes currently in the cache"]
	GaugeCacheDirtyBytes              // wiredTiger.cache["tracked dirty bytes in the cache"]
	GaugeCacheMaxBytes                // wiredTiger.cache["maximum bytes configured"]
	// GaugeCacheUsedPercent and GaugeCacheDirtyPercent are derived: bytes
	// in the cache and tracked dirty bytes as a percentage of the maximum
	// configured (mongostat's used and dirty).
	GaugeCacheUsedPercent
	GaugeCacheDirtyPercent
	// Execution tickets, read from a path that depends on the server's
	// version (see TicketsPath).
	GaugeReadTicketsOut
	GaugeReadTicketsAvailable
	GaugeWriteTicketsOut
	GaugeWriteTicketsAvailable
	GaugeQueueTotal   // globalLock.currentQueue.total
	GaugeQueueReaders // globalLock.currentQueue.readers
	GaugeQueueWriters // globalLock.currentQueue.writers
	GaugeResidentMiB  // mem.resident, in MiB
	// GaugeConnectionsAvailable is connections.available: the incoming
	// connections the process would still accept,
	// min(maxIncomingConnections, 80% of the file descriptor limit) −
	// current (SessionManagerCommon::appendStats in
	// src/mongo/transport/session_manager_common.cpp, mongodb/mongo 8.0;
	// since SERVER-104811, 8.0.12 and 7.0.23, queued connections count
	// against it too). 0 means new connections are refused.
	GaugeConnectionsAvailable
	// NumGauges is the number of gauges.
	NumGauges
)

var counterNames = [NumCounters]string{
	"insert", "query", "update", "delete", "getmore", "command",
	"netIn", "netOut", "evictedByApp", "connectionsCreated",
}

var gaugeNames = [NumGauges]string{
	"connections", "cacheBytes", "cacheDirtyBytes", "cacheMaxBytes", "cacheUsedPercent", "cacheDirtyPercent",
	"readTicketsOut", "readTicketsAvailable", "writeTicketsOut", "writeTicketsAvailable",
	"queueTotal", "queueReaders", "queueWriters", "residentMiB", "connectionsAvailable",
}

// String is the counter's name in series (JSON keys) and tables.
func (c Counter) String() string {
	if c < 0 || c >= NumCounters {
		return "counter(" + strconv.Itoa(int(c)) + ")"
	}
	return counterNames[c]
}

// String is the gauge's name in series (JSON keys) and tables.
func (g Gauge) String() string {
	if g < 0 || g >= NumGauges {
		return "gauge(" + strconv.Itoa(int(g)) + ")"
	}
	return gaugeNames[g]
}

// Sections of serverStatus that the fields are read from. Each is looked up
// once per sample.
type section int

const (
	secOpcounters section = iota
	secConnections
	secNetwork
	secCache
	secTickets // version-dependent: see ticketSections
	secQueue
	secMem
	numSections
)

var sectionPaths = [numSections][]string{
	secOpcounters:  {"opcounters"},
	secConnections: {"connections"},
	secNetwork:     {"network"},
	secCache:       {"wiredTiger", "cache"},
	secQueue:       {"globalLock", "currentQueue"},
	secMem:         {"mem"},
}

// The execution ticket sections: wiredTiger.concurrentTransactions through
// MongoDB 7.0, queues.execution from 8.0 on (where the former is gone).
var (
	ticketsWiredTiger = []string{"wiredTiger", "concurrentTransactions"}
	ticketsQueues     = []string{"queues", "execution"}
)

// field is where a raw value lives: a key in a section.
type field struct {
	sec section
	key []string
}

var counterFields = [NumCounters]field{
	CounterInsert:             {secOpcounters, []string{"insert"}},
	CounterQuery:              {secOpcounters, []string{"query"}},
	CounterUpdate:             {secOpcounters, []string{"update"}},
	CounterDelete:             {secOpcounters, []string{"delete"}},
	CounterGetmore:            {secOpcounters, []string{"getmore"}},
	CounterCommand:            {secOpcounters, []string{"command"}},
	CounterNetIn:              {secNetwork, []string{"bytesIn"}},
	CounterNetOut:             {secNetwork, []string{"bytesOut"}},
	CounterEvictedByApp:       {secCache, []string{statPagesEvictedByApp}},
	CounterConnectionsCreated: {secConnections, []string{"totalCreated"}},
}

// EvictionSource names the WiredTiger statistics CounterEvictedByApp was
// read from. WiredTiger split "pages evicted by application threads" into
// attempts and failures (WT-8969, wiredtiger/wiredtiger commit 212a7f3c58,
// dist/stat_data.py: "cache_eviction_app_attempt - cache_eviction_app_fail
// = page evict successes by application threads"); the split first ships
// in MongoDB 8.1 (branch mongodb-8.1), 7.0 and 8.0 keep the old statistic.
type EvictionSource string

// The sources of CounterEvictedByApp.
const (
	// EvictionsPagesEvicted is wiredTiger.cache["pages evicted by
	// application threads"] (MongoDB through 8.0).
	EvictionsPagesEvicted EvictionSource = "pagesEvicted"
	// EvictionsAttemptsMinusFailures is wiredTiger.cache["page evict
	// attempts by application threads"] minus ["page evict failures by
	// application threads"] (MongoDB 8.1 and later): the evictions that
	// succeeded.
	EvictionsAttemptsMinusFailures EvictionSource = "attemptsMinusFailures"
)

// The WiredTiger statistics of pages evicted by application threads, as
// serverStatus names them under wiredTiger.cache (src/support/stat.c,
// "cache: ...", split at the colon by MongoDB).
const (
	statPagesEvictedByApp  = "pages evicted by application threads"
	statEvictAttemptsByApp = "page evict attempts by application threads"
	statEvictFailuresByApp = "page evict failures by application threads"
)

// gaugeFields holds the raw gauges; the derived ones have no key.
var gaugeFields = [NumGauges]field{
	GaugeConnections:           {secConnections, []string{"current"}},
	GaugeCacheBytes:            {secCache, []string{"bytes currently in the cache"}},
	GaugeCacheDirtyBytes:       {secCache, []string{"tracked dirty bytes in the cache"}},
	GaugeCacheMaxBytes:         {secCache, []string{"maximum bytes configured"}},
	GaugeReadTicketsOut:        {secTickets, []string{"read", "out"}},
	GaugeReadTicketsAvailable:  {secTickets, []string{"read", "available"}},
	GaugeWriteTicketsOut:       {secTickets, []string{"write", "out"}},
	GaugeWriteTicketsAvailable: {secTickets, []string{"write", "available"}},
	GaugeQueueTotal:            {secQueue, []string{"total"}},
	GaugeQueueReaders:          {secQueue, []string{"readers"}},
	GaugeQueueWriters:          {secQueue, []string{"writers"}},
	GaugeResidentMiB:           {secMem, []string{"resident"}},
	GaugeConnectionsAvailable:  {secConnections, []string{"available"}},
}

func (g Gauge) derived() bool { return g == GaugeCacheUsedPercent || g == GaugeCacheDirtyPercent }

// Sample is one serverStatus of one process at one time. Every value is
// optional: a field the server did not report (an older or newer version, a
// mongos without a storage engine, a wire-compatible server that implements
// little) or reported as something other than a number is absent, never 0.
type Sample struct {
	// Time is when the server took the sample as seen by this process (the
	// midpoint of the call, for the Sampler).
	Time time.Time
	// Version is serverStatus.version, "" when absent.
	Version string
	// UptimeMillis is serverStatus.uptimeMillis; a decrease between two
	// samples means the process restarted.
	UptimeMillis Opt[int64]
	Counters     [NumCounters]Opt[int64]
	Gauges       [NumGauges]Opt[float64]
	// TicketsPath is the section the ticket gauges were read from
	// ("wiredTiger.concurrentTransactions" or "queues.execution"), "" when
	// neither was present.
	TicketsPath string
	// EvictedByAppFrom is what CounterEvictedByApp was read from, "" when
	// it is absent.
	EvictedByAppFrom EvictionSource
	// Repl is what the process says of its replica set's primary.
	Repl ReplView
	// ReplLagMillis is, for a primary of a set of several members, how
	// far its furthest SECONDARY was behind it (ReplLagMillis); not valid
	// otherwise.
	ReplLagMillis Opt[int64]
}

// ReplView is what one serverStatus of a replica set member says of the
// set's primary. serverStatus.repl is the member's hello reply
// (ReplicationInfoServerStatus in src/mongo/db/repl/replication_info.cpp,
// HelloResponse::addToBSON in src/mongo/db/repl/hello_response.cpp,
// mongodb/mongo); a standalone mongod and a mongos have none.
type ReplView struct {
	// Member is set when the sample had repl.isWritablePrimary (ismaster
	// before 4.9): the process is a replica set member, and the fields
	// below mean something.
	Member bool
	// WritablePrimary is repl.isWritablePrimary: the process is the
	// primary.
	WritablePrimary bool
	// Primary is repl.primary, the member this one sees as primary ("" when
	// it sees none).
	Primary string
	// ElectionID is repl.electionId in hex, reported by the primary only:
	// ObjectId 7fffffff followed by the election's term
	// (TopologyCoordinator::fillHelloForReplSet, OID::fromTerm), so a new
	// election on the same primary changes it.
	ElectionID string
}

// TicketsPath returns the serverStatus section that holds the execution
// tickets for a server version, and the one to fall back to when it is
// missing: wiredTiger.concurrentTransactions through 7.x, queues.execution
// from 8.0 on. An empty or unparsable version prefers queues.execution.
func TicketsPath(version string) (preferred, fallback []string) {
	major, err := strconv.Atoi(strings.SplitN(version, ".", 2)[0])
	if err == nil && major < 8 {
		return ticketsWiredTiger, ticketsQueues
	}
	return ticketsQueues, ticketsWiredTiger
}

// Extract reads a Sample from a serverStatus reply taken at time at. It
// never fails: what is missing, malformed or oddly typed is left absent
// (Sample.Absent lists it). Numbers may be int32, int64 or double.
func Extract(doc bson.Raw, at time.Time) Sample {
	d := bsoncore.Document(doc)
	s := Sample{Time: at}
	if v, err := d.LookupErr("version"); err == nil {
		s.Version, _ = v.StringValueOK()
	}
	s.UptimeMillis = intValue(d, "uptimeMillis")

	var secs [numSections]bsoncore.Document
	for i, p := range sectionPaths {
		if p != nil {
			secs[i] = subDocument(d, p...)
		}
	}
	preferred, fallback := TicketsPath(s.Version)
	for _, p := range [][]string{preferred, fallback} {
		if t := subDocument(d, p...); t != nil {
			secs[secTickets] = t
			s.TicketsPath = strings.Join(p, ".")
			break
		}
	}

	for c, f := range counterFields {
		s.Counters[c] = intValue(secs[f.sec], f.key...)
	}
	s.Counters[CounterEvictedByApp], s.EvictedByAppFrom = evictedByApp(secs[secCache])
	s.Repl = replView(subDocument(d, "repl"))
	for g, f := range gaugeFields {
		if Gauge(g).derived() {
			continue
		}
		if v := intValue(secs[f.sec], f.key...); v.Valid {
			s.Gauges[g] = some(float64(v.V))
		}
	}
	s.Gauges[GaugeCacheUsedPercent] = percent(s.Gauges[GaugeCacheBytes], s.Gauges[GaugeCacheMaxBytes])
	s.Gauges[GaugeCacheDirtyPercent] = percent(s.Gauges[GaugeCacheDirtyBytes], s.Gauges[GaugeCacheMaxBytes])
	return s
}

// replView reads a member's view of its primary from serverStatus.repl;
// the zero view when there is no such section or no isWritablePrimary.
func replView(repl bsoncore.Document) ReplView {
	var r ReplView
	if repl == nil {
		return r
	}
	for _, key := range []string{"isWritablePrimary", "ismaster"} {
		if v, err := repl.LookupErr(key); err == nil {
			if b, ok := v.BooleanOK(); ok {
				r.Member, r.WritablePrimary = true, b
				break
			}
		}
	}
	if !r.Member {
		return ReplView{}
	}
	if v, err := repl.LookupErr("primary"); err == nil {
		r.Primary, _ = v.StringValueOK()
	}
	if v, err := repl.LookupErr("electionId"); err == nil {
		if id, ok := v.ObjectIDOK(); ok {
			r.ElectionID = hex.EncodeToString(id[:])
		}
	}
	return r
}

// changedFrom reports whether the view differs from the last one known of
// the same process: isWritablePrimary flipped, or another primary, or
// another election on the primary. A field one of them lacks (no primary
// in sight, a member that is not primary has no electionId) compares with
// nothing.
func (r ReplView) changedFrom(last ReplView) bool {
	return r.Member && last.Member && (r.WritablePrimary != last.WritablePrimary ||
		r.Primary != "" && last.Primary != "" && r.Primary != last.Primary ||
		r.ElectionID != "" && last.ElectionID != "" && r.ElectionID != last.ElectionID)
}

// update folds the view into the last one known: the fields it has.
func (r ReplView) update(last *ReplView) {
	if !r.Member {
		return
	}
	last.Member, last.WritablePrimary = true, r.WritablePrimary
	if r.Primary != "" {
		last.Primary = r.Primary
	}
	if r.ElectionID != "" {
		last.ElectionID = r.ElectionID
	}
}

// evictedByApp reads the pages evicted by application threads from the
// cache section: the old statistic when it is there, else attempts minus
// failures (which only grows, as both are counters of the same events).
func evictedByApp(cache bsoncore.Document) (Opt[int64], EvictionSource) {
	if v := intValue(cache, statPagesEvictedByApp); v.Valid {
		return v, EvictionsPagesEvicted
	}
	attempts, failures := intValue(cache, statEvictAttemptsByApp), intValue(cache, statEvictFailuresByApp)
	if !attempts.Valid || !failures.Valid || failures.V > attempts.V {
		return Opt[int64]{}, ""
	}
	return some(attempts.V - failures.V), EvictionsAttemptsMinusFailures
}

// splitEvictionStats tells whether a server version reports the
// application threads' evictions as attempts and failures (8.1 on); an
// empty or unparsable version is taken as an older one.
func splitEvictionStats(version string) bool {
	parts := strings.SplitN(version, ".", 3)
	if len(parts) < 2 {
		return false
	}
	major, err1 := strconv.Atoi(parts[0])
	minor, err2 := strconv.Atoi(leadingDigits(parts[1]))
	return err1 == nil && err2 == nil && (major > 8 || major == 8 && minor >= 1)
}

// leadingDigits is the digits s starts with ("1" of "1-rc0").
func leadingDigits(s string) string {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return s[:n]
}

// Absent lists the serverStatus fields (dotted paths) that the sample lacks.
// The ticket fields are named by the section the sample's version prefers.
func (s *Sample) Absent() []string {
	var out []string
	if s.Version == "" {
		out = append(out, "version")
	}
	if !s.UptimeMillis.Valid {
		out = append(out, "uptimeMillis")
	}
	for c := range NumCounters {
		switch {
		case s.Counters[c].Valid:
		case c == CounterEvictedByApp && splitEvictionStats(s.Version):
			// The statistics this version reports.
			out = append(out, s.path(field{secCache, []string{statEvictAttemptsByApp}}),
				s.path(field{secCache, []string{statEvictFailuresByApp}}))
		default:
			out = append(out, s.path(counterFields[c]))
		}
	}
	for g := range NumGauges {
		if !g.derived() && !s.Gauges[g].Valid {
			out = append(out, s.path(gaugeFields[g]))
		}
	}
	if !s.Repl.Member {
		out = append(out, "repl.isWritablePrimary")
	}
	return out
}

// path is the dotted serverStatus path of a field as this sample reads it.
func (s *Sample) path(f field) string {
	sec := sectionPaths[f.sec]
	if f.sec == secTickets {
		sec, _ = TicketsPath(s.Version)
		if s.TicketsPath != "" {
			sec = strings.Split(s.TicketsPath, ".")
		}
	}
	return strings.Join(sec, ".") + "." + strings.Join(f.key, ".")
}

// percent is 100·part/whole when both are present and whole is positive.
func percent(part, whole Opt[float64]) Opt[float64] {
	if !part.Valid || !whole.Valid || whole.V <= 0 {
		return Opt[float64]{}
	}
	return some(100 * part.V / whole.V)
}

// subDocument returns the embedded document at path, or nil.
func subDocument(d bsoncore.Document, path ...string) bsoncore.Document {
	if d == nil {
		return nil
	}
	v, err := d.LookupErr(path...)
	if err != nil {
		return nil
	}
	sub, ok := v.DocumentOK()
	if !ok {
		return nil
	}
	return sub
}

// intValue reads a number at path in d: int32, int64 or a finite double
// within int64's range (rounded). Anything else is absent.
func intValue(d bsoncore.Document, path ...string) Opt[int64] {
	if d == nil {
		return Opt[int64]{}
	}
	v, err := d.LookupErr(path...)
	if err != nil {
		return Opt[int64]{}
	}
	switch v.Type {
	case bsoncore.TypeInt32:
		if n, ok := v.Int32OK(); ok {
			return some(int64(n))
		}
	case bsoncore.TypeInt64:
		if n, ok := v.Int64OK(); ok {
			return some(n)
		}
	case bsoncore.TypeDouble:
		// 2^63 is the first double beyond int64's range.
		if f, ok := v.DoubleOK(); ok && !math.IsNaN(f) && math.Abs(f) < 1<<63 {
			return some(int64(math.Round(f)))
		}
	}
	return Opt[int64]{}
}
