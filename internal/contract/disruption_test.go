package contract

import (
	"strings"
	"testing"
	"time"
)

func TestDisruptionRoundTrip(t *testing.T) {
	d := Disruption{Index: 3, Action: "StepDown", At: 1500 * time.Millisecond, StepDownSecs: 60, CatchUpSecs: 10}
	s := EncodeDisruption(d)
	if s != "3,StepDown,1.5s,stepDownSecs=60,catchUpSecs=10" {
		t.Fatalf("encoded %q", s)
	}
	got, err := DecodeDisruption(s)
	if err != nil || got != d {
		t.Fatalf("decoded %+v, %v; want %+v", got, err, d)
	}
	if DisruptionLedgerName("r1-run", 2) != "r1-run-disruption-2" {
		t.Errorf("ledger name %q", DisruptionLedgerName("r1-run", 2))
	}
}

func TestDecodeDisruptionRejects(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"0,StepDown", "want INDEX,ACTION,AT"},
		{"x,StepDown,1s,stepDownSecs=60,catchUpSecs=10", "index"},
		{"-1,StepDown,1s,stepDownSecs=60,catchUpSecs=10", "index"},
		{"0,StepDown,soon,stepDownSecs=60,catchUpSecs=10", "at"},
		{"0,StepDown,-1s,stepDownSecs=60,catchUpSecs=10", "at"},
		{"0,KillPrimary,1s", "unknown action"},
		{"0,StepDown,1s,stepDownSecs=60", "greater than"},
		{"0,StepDown,1s,stepDownSecs=10,catchUpSecs=10", "greater than"},
		{"0,StepDown,1s,stepDownSecs=60,catchUpSecs=10,force=1", "unknown key"},
		{"0,StepDown,1s,stepDownSecs=x,catchUpSecs=10", "key=number"},
	} {
		if _, err := DecodeDisruption(tc.in); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want it to mention %q", tc.in, err, tc.want)
		}
	}
}
