package telemetry

import (
	"bytes"
	"compress/gzip"
	"reflect"
	"strings"
	"testing"
)

// The report round-trips through its transport form, whole when it fits.
func TestEncodePayloadRoundTrip(t *testing.T) {
	r, _ := largestPayload(t)
	b, trimmed, err := EncodePayload(r, 1<<20)
	if err != nil || trimmed != (Trimmed{}) {
		t.Fatalf("EncodePayload: %v, trimmed %+v", err, trimmed)
	}
	got, err := DecodePayload(b)
	if err != nil {
		t.Fatal(err)
	}
	equalJSON(t, "report", got, r)
}

// Bounding the size: the collection's growth goes first, then every
// series is halved, counter totals kept exact, until the report fits; the
// report given is left alone. Limits are chosen from the real sizes.
func TestEncodePayloadBounded(t *testing.T) {
	r, _ := largestPayload(t)
	before := mustJSON(t, r)
	whole, _, err := EncodePayload(r, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	noGrowth := *r
	noGrowth.Collection = &CollectionPayload{Final: r.Collection.Final}
	withoutGrowth, _, err := EncodePayload(&noGrowth, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("whole %d B, without growth %d B", len(whole), len(withoutGrowth))

	for _, tc := range []struct {
		name      string
		limit     int
		growth    bool
		minHalves int
	}{
		{"fits", len(whole), false, 0},
		{"growth dropped", len(whole) - 1, true, 0},
		{"growth dropped, just fits", len(withoutGrowth), true, 0},
		{"series halved", len(withoutGrowth) - 1, true, 1},
		{"series halved thrice or more", len(withoutGrowth) / 6, true, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, trimmed, err := EncodePayload(r, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			if len(b) > tc.limit {
				t.Errorf("%d bytes, limit %d", len(b), tc.limit)
			}
			if trimmed.Growth != tc.growth || trimmed.Halvings < tc.minHalves || (tc.minHalves == 0 && trimmed.Halvings != 0) {
				t.Errorf("trimmed %+v, want growth %t and at least %d halvings", trimmed, tc.growth, tc.minHalves)
			}
			got, err := DecodePayload(b)
			if err != nil {
				t.Fatal(err)
			}
			if got.Collection == nil || got.Collection.Final == nil || (len(got.Collection.Growth) == 0) != tc.growth {
				t.Errorf("collection %+v", got.Collection)
			}
			for i := range got.Processes {
				gs, ws := &got.Processes[i].Series, &r.Processes[i].Series
				if want := (len(ws.Points) + (1<<trimmed.Halvings - 1)) >> trimmed.Halvings; len(gs.Points) != want {
					t.Errorf("%s: %d points after %d halvings of %d", got.Processes[i].Pod, len(gs.Points), trimmed.Halvings, len(ws.Points))
				}
				if gs.IntervalMillis != ws.IntervalMillis<<trimmed.Halvings || gs.Samples() != ws.Samples() {
					t.Errorf("%s: interval %d ms, %d samples; was %d ms, %d samples", got.Processes[i].Pod,
						gs.IntervalMillis, gs.Samples(), ws.IntervalMillis, ws.Samples())
				}
				for c := range NumCounters {
					if gs.Total(c) != ws.Total(c) {
						t.Errorf("%s: %s total %+v, was %+v", got.Processes[i].Pod, c, gs.Total(c), ws.Total(c))
					}
				}
			}
		})
	}
	if after := mustJSON(t, r); !bytes.Equal(before, after) {
		t.Error("EncodePayload changed the report it was given")
	}
	if _, _, err := EncodePayload(r, 100); err == nil || !strings.Contains(err.Error(), "more than the 100 allowed") {
		t.Errorf("a limit nothing fits: %v", err)
	}
}

func TestDecodePayloadRefuses(t *testing.T) {
	gz := func(s string) []byte {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		_, _ = zw.Write([]byte(s))
		_ = zw.Close()
		return b.Bytes()
	}
	whole, _, err := EncodePayload(&Payload{}, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		in   []byte
		want string
	}{
		{"not gzip", []byte("{}"), "not gzip"},
		{"truncated", whole[:len(whole)-4], "truncated"},
		{"not JSON", gz("nope"), "parse telemetry"},
		{"unknown field", gz(`{"start":"2026-01-01T00:00:00Z","end":"2026-01-01T00:00:00Z","processes":[],"extra":1}`), "unknown field"},
		{"bad series", gz(`{"processes":[{"role":"shard","pod":"p","series":{"intervalMillis":0,"points":[{"samples":1}]}}]}`),
			"telemetry of p: telemetry series interval 0 ms must be positive"},
	} {
		if r, err := DecodePayload(tc.in); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %+v, %v; want an error containing %q", tc.name, r, err, tc.want)
		}
	}
	if r, err := DecodePayload(whole); err != nil || !reflect.DeepEqual(r, &Payload{}) {
		t.Errorf("empty report: %+v, %v", r, err)
	}
}
