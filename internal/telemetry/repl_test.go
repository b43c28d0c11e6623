package telemetry

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// remove deletes a field in edit.
type remove struct{}

// edited is the recorded 8.2 shard primary with the fields at the dotted
// paths set (or removed), taken i seconds after t0 with its uptime i
// seconds further.
func edited(t *testing.T, i int, fields map[string]any) Sample {
	t.Helper()
	var doc bson.D
	if err := bson.Unmarshal(readDoc(t, "serverstatus-8.2.json"), &doc); err != nil {
		t.Fatal(err)
	}
	fields["uptimeMillis"] = int64(612345 + 1000*i)
	for path, v := range fields {
		doc = setPath(t, doc, strings.Split(path, "."), v)
	}
	raw, err := bson.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return Extract(raw, t0.Add(time.Duration(i)*time.Second))
}

func setPath(t *testing.T, d bson.D, path []string, v any) bson.D {
	t.Helper()
	for i, e := range d {
		if e.Key != path[0] {
			continue
		}
		switch {
		case len(path) > 1:
			sub, ok := e.Value.(bson.D)
			if !ok {
				t.Fatalf("%s is not a document", path[0])
			}
			d[i].Value = setPath(t, sub, path[1:], v)
		case v == remove{}:
			return append(d[:i:i], d[i+1:]...)
		default:
			d[i].Value = v
		}
		return d
	}
	if len(path) > 1 || v == (remove{}) {
		t.Fatalf("no field %s", path[0])
	}
	return append(d, bson.E{Key: path[0], Value: v})
}

// electionID is a primary's repl.electionId in a term: OID::fromTerm,
// 7fffffff and the term as a big-endian int64 (src/mongo/bson/oid.cpp).
func electionID(t *testing.T, term int) bson.ObjectID {
	t.Helper()
	id, err := bson.ObjectIDFromHex(fmt.Sprintf("7fffffff%016x", term))
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// What serverStatus.repl shows of elections and primaries, per process:
// a change of electionId on the primary (a new term), isWritablePrimary
// flipping, another primary seen by a secondary; a restart is counted as
// such, not as a primary change.
func TestPrimaryChanges(t *testing.T) {
	const a, b = "mb-shard0-0.mb-shard0:27018", "mb-shard0-1.mb-shard0:27018"
	secondary := func(primary any) map[string]any {
		return map[string]any{"repl.isWritablePrimary": false, "repl.secondary": true, "repl.electionId": remove{}, "repl.primary": primary}
	}
	for _, tt := range []struct {
		name     string
		samples  func(t *testing.T) []Sample
		changes  int
		restarts int
		// at are the samples (by index) the changes were seen in.
		at []int
	}{{
		name: "a primary throughout, one term",
		samples: func(t *testing.T) []Sample {
			var out []Sample
			for i := range 4 {
				out = append(out, edited(t, i, map[string]any{}))
			}
			return out
		},
	}, {
		// Re-elected between two samples: still primary, in a new term.
		name: "a primary whose electionId changes mid-phase",
		samples: func(t *testing.T) []Sample {
			var out []Sample
			for i := range 6 {
				term := 3
				if i >= 3 {
					term = 4
				}
				out = append(out, edited(t, i, map[string]any{"repl.electionId": electionID(t, term)}))
			}
			return out
		},
		changes: 1,
		at:      []int{3},
	}, {
		// Steps down (isWritablePrimary flips, electionId goes), then wins
		// the next election: two changes.
		name: "a primary that steps down and is elected again",
		samples: func(t *testing.T) []Sample {
			return []Sample{
				edited(t, 0, map[string]any{}),
				edited(t, 1, secondary(remove{})),
				edited(t, 2, map[string]any{"repl.electionId": electionID(t, 4)}),
				edited(t, 3, map[string]any{"repl.electionId": electionID(t, 4)}),
			}
		},
		changes: 2,
		at:      []int{1, 2},
	}, {
		// A secondary sees b become primary after a sample without any.
		name: "a secondary whose primary changes",
		samples: func(t *testing.T) []Sample {
			return []Sample{
				edited(t, 0, secondary(a)), edited(t, 1, secondary(a)), edited(t, 2, secondary(remove{})),
				edited(t, 3, secondary(b)), edited(t, 4, secondary(b)),
			}
		},
		changes: 1,
		at:      []int{3},
	}, {
		name: "a secondary that sees the same primary again after none",
		samples: func(t *testing.T) []Sample {
			return []Sample{edited(t, 0, secondary(a)), edited(t, 1, secondary(remove{})), edited(t, 2, secondary(a))}
		},
	}, {
		// The restart is one: the new term it brings is not a change of
		// primary on top of it.
		name: "a restart that brings a new term",
		samples: func(t *testing.T) []Sample {
			return []Sample{
				edited(t, 0, map[string]any{}),
				edited(t, 1, map[string]any{}),
				func() Sample {
					s := edited(t, 2, map[string]any{"repl.electionId": electionID(t, 4)})
					s.UptimeMillis = iv(800)
					return s
				}(),
				func() Sample {
					s := edited(t, 3, map[string]any{"repl.electionId": electionID(t, 4)})
					s.UptimeMillis = iv(1800)
					return s
				}(),
			}
		},
		restarts: 1,
	}, {
		// A server before 4.9 names the field ismaster.
		name: "ismaster flipping",
		samples: func(t *testing.T) []Sample {
			old := func(i int, primary bool) Sample {
				return edited(t, i, map[string]any{"repl.isWritablePrimary": remove{}, "repl.ismaster": primary, "repl.electionId": remove{}})
			}
			return []Sample{old(0, true), old(1, true), old(2, false)}
		},
		changes: 1,
		at:      []int{2},
	}} {
		t.Run(tt.name, func(t *testing.T) {
			s := buildSeries(time.Second, tt.samples(t)...)
			sum := Summarize("shard", "mb-shard0-0", &s)
			if sum.PrimaryChanges != tt.changes || sum.Restarts != tt.restarts {
				t.Errorf("%d primary changes and %d restarts, want %d and %d", sum.PrimaryChanges, sum.Restarts, tt.changes, tt.restarts)
			}
			samples := tt.samples(t)
			var want []time.Time
			for _, i := range tt.at {
				want = append(want, samples[i].Time)
			}
			if !slices.EqualFunc(s.PrimaryChangeTimes, want, time.Time.Equal) {
				t.Errorf("changes seen at %v, want %v", s.PrimaryChangeTimes, want)
			}
			if err := s.Validate(); err != nil {
				t.Error(err)
			}
			for _, a := range sum.Absent {
				if strings.HasPrefix(a, "repl.") {
					t.Errorf("%s absent from a replica set member", a)
				}
			}
		})
	}

	// A mongos has no repl section: no changes, and repl named absent.
	var doc bson.D
	if err := bson.Unmarshal(readDoc(t, "serverstatus-8.2.json"), &doc); err != nil {
		t.Fatal(err)
	}
	doc = setPath(t, doc, []string{"repl"}, remove{})
	raw, err := bson.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	s0, s1 := Extract(raw, t0), Extract(raw, t0.Add(time.Second))
	s := buildSeries(time.Second, s0, s1)
	if sum := Summarize("mongos", "m", &s); sum.PrimaryChanges != 0 || s0.Repl != (ReplView{}) ||
		!strings.Contains(strings.Join(sum.Absent, ","), "repl.isWritablePrimary") {
		t.Errorf("mongos: %d primary changes, view %+v, absent %q", sum.PrimaryChanges, s0.Repl, sum.Absent)
	}
}

// connections.available: its lowest value, 0 included (connections were
// refused then), and nothing for a process that never reported it.
func TestMinConnectionsAvailable(t *testing.T) {
	var samples []Sample
	for i, avail := range []int32{100, 3, 0, 50} {
		samples = append(samples, edited(t, i, map[string]any{"connections.available": avail}))
	}
	s := buildSeries(time.Second, samples...)
	if got := Summarize("shard", "p", &s).MinConnectionsAvailable; got == nil || *got != 0 {
		t.Errorf("min connections available %v, want 0", got)
	}
	none := buildSeries(time.Second, edited(t, 0, map[string]any{"connections.available": remove{}}),
		edited(t, 1, map[string]any{"connections.available": remove{}}))
	sum := Summarize("shard", "p", &none)
	if sum.MinConnectionsAvailable != nil || !strings.Contains(strings.Join(sum.Absent, ","), "connections.available") {
		t.Errorf("never reported: min %v, absent %q", sum.MinConnectionsAvailable, sum.Absent)
	}
}

// The WiredTiger cache's configured size: its value, and whether it
// changed during the phase; nothing for a process without a cache.
func TestCacheMaxBytes(t *testing.T) {
	const gib = int64(1) << 30
	for _, tt := range []struct {
		name    string
		sizes   []any
		want    *int64
		changed bool
	}{
		{"the same throughout", []any{2 * gib, 2 * gib, 2 * gib}, ptr(2 * gib), false},
		{"resized mid-phase", []any{2 * gib, 2 * gib, gib}, ptr(2 * gib), true},
		{"no cache (mongos)", []any{remove{}, remove{}}, nil, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var samples []Sample
			for i, sz := range tt.sizes {
				samples = append(samples, edited(t, i, map[string]any{"wiredTiger.cache.maximum bytes configured": sz}))
			}
			s := buildSeries(time.Second, samples...)
			sum := Summarize("shard", "p", &s)
			if (sum.CacheMaxBytes == nil) != (tt.want == nil) || (tt.want != nil && *sum.CacheMaxBytes != *tt.want) ||
				sum.CacheMaxBytesChanged != tt.changed {
				t.Errorf("cache max bytes %v, changed %t; want %v, %t", sum.CacheMaxBytes, sum.CacheMaxBytesChanged, tt.want, tt.changed)
			}
		})
	}
}
