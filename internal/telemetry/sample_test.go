package telemetry

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// The recorded documents of each version, and one missing whole sections:
// every value the package reads, where the version puts it, and the fields
// it could not read named as absent.
func TestExtractRecorded(t *testing.T) {
	all := func(ins, qry, upd, del, gm, cmd, netIn, netOut, evicted, created int64) [NumCounters]Opt[int64] {
		return [NumCounters]Opt[int64]{iv(ins), iv(qry), iv(upd), iv(del), iv(gm), iv(cmd), iv(netIn), iv(netOut), iv(evicted), iv(created)}
	}
	tests := []struct {
		file        string
		version     string
		uptime      Opt[int64]
		ticketsPath string
		evictedFrom EvictionSource
		repl        ReplView
		counters    [NumCounters]Opt[int64]
		gauges      [NumGauges]Opt[float64]
		absent      []string
	}{{
		file: "serverstatus-6.0.json", version: "6.0.19", uptime: iv(3600123), ticketsPath: "wiredTiger.concurrentTransactions",
		evictedFrom: EvictionsPagesEvicted, absent: []string{"repl.isWritablePrimary"},
		counters: all(100000, 12, 250000, 0, 3, 4021, 123456789, 987654321, 17, 310),
		gauges: [NumGauges]Opt[float64]{
			fv(25), fv(805306368), fv(41943040), fv(1073741824), fv(75), fv(3.90625),
			fv(1), fv(127), fv(2), fv(126), fv(3), fv(1), fv(2), fv(812), fv(838835),
		},
	}, {
		file: "serverstatus-7.0.json", version: "7.0.14", uptime: iv(95042), ticketsPath: "wiredTiger.concurrentTransactions",
		evictedFrom: EvictionsPagesEvicted, absent: []string{"repl.isWritablePrimary"},
		counters: all(400000, 4, 0, 0, 191, 20051, 500000000, 41000000, 3012, 88),
		gauges: [NumGauges]Opt[float64]{
			fv(71), fv(268435456), fv(107374182), fv(536870912), fv(50), fv(100 * 107374182.0 / 536870912),
			fv(1), fv(7), fv(5), fv(3), fv(0), fv(0), fv(0), fv(1532), fv(838789),
		},
	}, {
		file: "serverstatus-8.0.json", version: "8.0.4", uptime: iv(612345), ticketsPath: "queues.execution",
		evictedFrom: EvictionsPagesEvicted, absent: []string{"repl.isWritablePrimary"},
		counters: all(0, 30000000, 1500000, 0, 0, 28610034, 9000000000, 71000000000, 45678, 141),
		gauges: [NumGauges]Opt[float64]{
			fv(136), fv(2040109466), fv(21474836), fv(2147483648), fv(100 * 2040109466.0 / 2147483648), fv(100 * 21474836.0 / 2147483648),
			fv(128), fv(0), fv(30), fv(98), fv(9), fv(7), fv(2), fv(3310), fv(838724),
		},
	}, {
		// 8.1 on: the application threads' evictions are attempts and
		// failures (WT-8969); the counter is their difference, 50000 −
		// 4322.
		file: "serverstatus-8.2.json", version: "8.2.1", uptime: iv(612345), ticketsPath: "queues.execution",
		evictedFrom: EvictionsAttemptsMinusFailures,
		repl:        ReplView{Member: true, WritablePrimary: true, Primary: "mb-shard0-0.mb-shard0:27018", ElectionID: "7fffffff0000000000000003"},
		counters:    all(0, 30000000, 1500000, 0, 0, 28610034, 9000000000, 71000000000, 45678, 141),
		gauges: [NumGauges]Opt[float64]{
			fv(136), fv(2040109466), fv(21474836), fv(2147483648), fv(100 * 2040109466.0 / 2147483648), fv(100 * 21474836.0 / 2147483648),
			fv(128), fv(0), fv(30), fv(98), fv(9), fv(7), fv(2), fv(3310), fv(838724),
		},
	}, {
		// Whole sections missing (wiredTiger is a string, no globalLock or
		// queues) and oddly typed values: a string, null, a bool, a
		// decimal, NaN; a double counter is rounded.
		file: "serverstatus-8.0-sparse.json", version: "8.0.4",
		counters: [NumCounters]Opt[int64]{
			CounterQuery: iv(30000000), CounterUpdate: iv(1500000), CounterCommand: iv(30000100),
			CounterNetIn: iv(71000000000), CounterConnectionsCreated: iv(70),
		},
		gauges: [NumGauges]Opt[float64]{GaugeConnections: fv(64), GaugeConnectionsAvailable: fv(838796)},
		absent: []string{
			"uptimeMillis", "opcounters.insert", "opcounters.delete", "opcounters.getmore", "network.bytesOut",
			"wiredTiger.cache.pages evicted by application threads",
			"wiredTiger.cache.bytes currently in the cache", "wiredTiger.cache.tracked dirty bytes in the cache",
			"wiredTiger.cache.maximum bytes configured",
			"queues.execution.read.out", "queues.execution.read.available", "queues.execution.write.out", "queues.execution.write.available",
			"globalLock.currentQueue.total", "globalLock.currentQueue.readers", "globalLock.currentQueue.writers", "mem.resident",
			"repl.isWritablePrimary",
		},
	}, {
		// Recorded from mongo-java-server: a 6.0 that reports almost nothing.
		file: "serverstatus-wireserver.json", version: "6.0.0", uptime: iv(267),
		gauges: [NumGauges]Opt[float64]{GaugeConnections: fv(1)},
		absent: []string{
			"opcounters.insert", "opcounters.query", "opcounters.update", "opcounters.delete", "opcounters.getmore", "opcounters.command",
			"network.bytesIn", "network.bytesOut", "wiredTiger.cache.pages evicted by application threads", "connections.totalCreated",
			"wiredTiger.cache.bytes currently in the cache", "wiredTiger.cache.tracked dirty bytes in the cache",
			"wiredTiger.cache.maximum bytes configured",
			"wiredTiger.concurrentTransactions.read.out", "wiredTiger.concurrentTransactions.read.available",
			"wiredTiger.concurrentTransactions.write.out", "wiredTiger.concurrentTransactions.write.available",
			"globalLock.currentQueue.total", "globalLock.currentQueue.readers", "globalLock.currentQueue.writers", "mem.resident",
			"connections.available", "repl.isWritablePrimary",
		},
	}}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got := Extract(readDoc(t, tt.file), t0)
			want := Sample{Time: t0, Version: tt.version, UptimeMillis: tt.uptime, Counters: tt.counters, Gauges: tt.gauges, TicketsPath: tt.ticketsPath}
			if got.Version != want.Version || got.UptimeMillis != want.UptimeMillis || got.TicketsPath != want.TicketsPath || !got.Time.Equal(t0) {
				t.Errorf("version %q, uptime %v, tickets %q; want %q, %v, %q",
					got.Version, got.UptimeMillis, got.TicketsPath, want.Version, want.UptimeMillis, want.TicketsPath)
			}
			if got.Repl != tt.repl {
				t.Errorf("repl %+v, want %+v", got.Repl, tt.repl)
			}
			if got.EvictedByAppFrom != tt.evictedFrom {
				t.Errorf("evictions by application threads read from %q, want %q", got.EvictedByAppFrom, tt.evictedFrom)
			}
			for c := range NumCounters {
				if got.Counters[c] != want.Counters[c] {
					t.Errorf("%s = %+v, want %+v", c, got.Counters[c], want.Counters[c])
				}
			}
			for g := range NumGauges {
				if got.Gauges[g].Valid != want.Gauges[g].Valid || math.Abs(got.Gauges[g].V-want.Gauges[g].V) > 1e-9 {
					t.Errorf("%s = %+v, want %+v", g, got.Gauges[g], want.Gauges[g])
				}
			}
			if a := got.Absent(); !reflect.DeepEqual(a, tt.absent) {
				t.Errorf("absent:\n got %q\nwant %q", a, tt.absent)
			}
		})
	}
}

func TestTicketsPath(t *testing.T) {
	wt := "wiredTiger.concurrentTransactions"
	q := "queues.execution"
	for _, tt := range []struct {
		version, preferred, fallback string
	}{
		{"4.4.29", wt, q},
		{"6.0.19", wt, q},
		{"7.0.14", wt, q},
		{"7.3.4", wt, q},
		{"8.0.0-rc3", q, wt},
		{"8.0.4", q, wt},
		{"8.2.1", q, wt},
		{"10.0.0", q, wt},
		// Unknown versions prefer the newer layout.
		{"", q, wt},
		{"garbage", q, wt},
	} {
		p, f := TicketsPath(tt.version)
		if got, got2 := join(p), join(f); got != tt.preferred || got2 != tt.fallback {
			t.Errorf("TicketsPath(%q) = %s, %s; want %s, %s", tt.version, got, got2, tt.preferred, tt.fallback)
		}
	}
}

func join(p []string) string {
	s := ""
	for i, k := range p {
		if i > 0 {
			s += "."
		}
		s += k
	}
	return s
}

// The version picks the ticket section; when it is missing the other one
// is read, and when both are there the version decides.
func TestExtractTicketsFallback(t *testing.T) {
	tickets := func(out, avail int32) bson.D {
		return bson.D{
			{Key: "write", Value: bson.D{{Key: "out", Value: out}, {Key: "available", Value: avail}}},
			{Key: "read", Value: bson.D{{Key: "out", Value: out + 1}, {Key: "available", Value: avail + 1}}},
		}
	}
	wt := bson.E{Key: "wiredTiger", Value: bson.D{{Key: "concurrentTransactions", Value: tickets(5, 3)}}}
	queues := bson.E{Key: "queues", Value: bson.D{{Key: "execution", Value: tickets(50, 30)}}}
	for _, tt := range []struct {
		name     string
		doc      bson.D
		path     string
		writeOut float64
	}{
		{"7.0 with its own section", bson.D{{Key: "version", Value: "7.0.1"}, wt}, "wiredTiger.concurrentTransactions", 5},
		{"7.0 with only queues", bson.D{{Key: "version", Value: "7.0.1"}, queues}, "queues.execution", 50},
		{"7.0 with both", bson.D{{Key: "version", Value: "7.0.1"}, queues, wt}, "wiredTiger.concurrentTransactions", 5},
		{"8.0 with its own section", bson.D{{Key: "version", Value: "8.0.1"}, queues}, "queues.execution", 50},
		{"8.0 with only concurrentTransactions", bson.D{{Key: "version", Value: "8.0.1"}, wt}, "wiredTiger.concurrentTransactions", 5},
		{"8.0 with both", bson.D{{Key: "version", Value: "8.0.1"}, wt, queues}, "queues.execution", 50},
		{"no version, both", bson.D{wt, queues}, "queues.execution", 50},
		{"a version that is not a string", bson.D{{Key: "version", Value: 7}, wt}, "wiredTiger.concurrentTransactions", 5},
		{"neither", bson.D{{Key: "version", Value: "8.0.1"}}, "", 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			raw, err := bson.Marshal(tt.doc)
			if err != nil {
				t.Fatal(err)
			}
			s := Extract(raw, t0)
			if s.TicketsPath != tt.path {
				t.Errorf("TicketsPath = %q, want %q", s.TicketsPath, tt.path)
			}
			if got := s.Gauges[GaugeWriteTicketsOut]; got.Valid != (tt.path != "") || got.V != tt.writeOut {
				t.Errorf("write tickets out = %+v, want %v", got, tt.writeOut)
			}
			if got, want := s.Gauges[GaugeReadTicketsAvailable].V, map[float64]float64{5: 4, 50: 31, 0: 0}[tt.writeOut]; got != want {
				t.Errorf("read tickets available = %v, want %v", got, want)
			}
		})
	}
}

// Every BSON number type is accepted; what is not a finite number within
// int64's range is absent, never 0.
func TestExtractNumberTypes(t *testing.T) {
	dec, err := bson.ParseDecimal128("12")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name  string
		value any
		want  Opt[int64]
	}{
		{"int32", int32(7), iv(7)},
		{"int64", int64(1) << 40, iv(1 << 40)},
		{"double", 12.0, iv(12)},
		{"double rounded", 12.6, iv(13)},
		{"negative double", -2.4, iv(-2)},
		{"NaN", math.NaN(), Opt[int64]{}},
		{"+Inf", math.Inf(1), Opt[int64]{}},
		{"beyond int64", 1e19, Opt[int64]{}},
		{"string", "12", Opt[int64]{}},
		{"null", nil, Opt[int64]{}},
		{"bool", true, Opt[int64]{}},
		{"decimal", dec, Opt[int64]{}},
		{"document", bson.D{{Key: "n", Value: 1}}, Opt[int64]{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			raw, err := bson.Marshal(bson.D{{Key: "opcounters", Value: bson.D{{Key: "insert", Value: tt.value}}}})
			if err != nil {
				t.Fatal(err)
			}
			if got := Extract(raw, t0).Counters[CounterInsert]; got != tt.want {
				t.Errorf("insert = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// Garbage is not a document: everything is absent, nothing panics.
func TestExtractGarbage(t *testing.T) {
	for _, doc := range []bson.Raw{nil, {}, {1, 2, 3}, {5, 0, 0, 0, 0}, {200, 0, 0, 0, 3, 'x', 0, 1}} {
		s := Extract(doc, t0)
		if s.Version != "" || s.UptimeMillis.Valid || s.TicketsPath != "" {
			t.Errorf("Extract(%v) = %+v", []byte(doc), s)
		}
		for c := range NumCounters {
			if s.Counters[c].Valid {
				t.Errorf("Extract(%v): %s present", []byte(doc), c)
			}
		}
		if n := len(s.Absent()); n != 2+int(NumCounters)+int(NumGauges)-2+1 {
			t.Errorf("Extract(%v): %d fields absent", []byte(doc), n)
		}
	}
}

func TestNames(t *testing.T) {
	seen := map[string]bool{}
	for c := range NumCounters {
		seen[c.String()] = true
	}
	for g := range NumGauges {
		seen[g.String()] = true
	}
	if len(seen) != int(NumCounters+Counter(NumGauges)) {
		t.Errorf("counter and gauge names are not unique: %v", seen)
	}
	if got := Counter(-1).String(); got != "counter(-1)" {
		t.Errorf("Counter(-1) = %q", got)
	}
	if got := NumGauges.String(); got != "gauge(15)" {
		t.Errorf("NumGauges = %q", got)
	}
}

// The application threads' evictions: the statistic of 7.0 and 8.0 when
// it is there, else 8.1's attempts minus failures; anything less is
// absent, named by what the version reports.
func TestExtractEvictionsByApp(t *testing.T) {
	const (
		old      = "pages evicted by application threads"
		attempts = "page evict attempts by application threads"
		failures = "page evict failures by application threads"
	)
	for _, tt := range []struct {
		name    string
		version string
		cache   bson.D
		want    Opt[int64]
		from    EvictionSource
		absent  []string
	}{
		{"8.0: pages evicted", "8.0.16", bson.D{{Key: old, Value: int64(17)}}, iv(17), EvictionsPagesEvicted, nil},
		{"8.1: attempts minus failures", "8.1.0", bson.D{{Key: attempts, Value: int64(20)}, {Key: failures, Value: int32(3)}},
			iv(17), EvictionsAttemptsMinusFailures, nil},
		{"both: the old statistic", "8.2.1", bson.D{{Key: attempts, Value: int64(20)}, {Key: failures, Value: int64(3)}, {Key: old, Value: int64(9)}},
			iv(9), EvictionsPagesEvicted, nil},
		{"attempts without failures: absent", "8.2.1", bson.D{{Key: attempts, Value: int64(20)}}, Opt[int64]{}, "",
			[]string{"wiredTiger.cache." + attempts, "wiredTiger.cache." + failures}},
		{"more failures than attempts: absent", "8.2.1", bson.D{{Key: attempts, Value: int64(2)}, {Key: failures, Value: int64(3)}},
			Opt[int64]{}, "", []string{"wiredTiger.cache." + attempts, "wiredTiger.cache." + failures}},
		{"none, 8.0: the old statistic named", "8.0.16", bson.D{}, Opt[int64]{}, "", []string{"wiredTiger.cache." + old}},
		{"none, 8.1 release candidate", "8.1.0-rc0", bson.D{}, Opt[int64]{}, "",
			[]string{"wiredTiger.cache." + attempts, "wiredTiger.cache." + failures}},
		{"none, 10.0", "10.0.1", bson.D{}, Opt[int64]{}, "", []string{"wiredTiger.cache." + attempts, "wiredTiger.cache." + failures}},
		{"none, no version", "", bson.D{}, Opt[int64]{}, "", []string{"wiredTiger.cache." + old}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			raw, err := bson.Marshal(bson.D{{Key: "version", Value: tt.version},
				{Key: "wiredTiger", Value: bson.D{{Key: "cache", Value: tt.cache}}}})
			if err != nil {
				t.Fatal(err)
			}
			s := Extract(raw, t0)
			if got := s.Counters[CounterEvictedByApp]; got != tt.want || s.EvictedByAppFrom != tt.from {
				t.Errorf("evicted by app = %+v from %q, want %+v from %q", got, s.EvictedByAppFrom, tt.want, tt.from)
			}
			var absent []string
			for _, a := range s.Absent() {
				if strings.Contains(a, "application threads") {
					absent = append(absent, a)
				}
			}
			if !reflect.DeepEqual(absent, tt.absent) {
				t.Errorf("absent %q, want %q", absent, tt.absent)
			}
		})
	}
}
