package contract

import (
	"reflect"
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
	if err != nil || !reflect.DeepEqual(got, d) {
		t.Fatalf("decoded %+v, %v; want %+v", got, err, d)
	}
	for _, tc := range []struct {
		d    Disruption
		want string
	}{
		{Disruption{Index: 1, Action: "KillPrimary", At: 45 * time.Second}, "1,KillPrimary,45s"},
		{Disruption{Index: 3, Action: "KillMongos", At: time.Minute}, "3,KillMongos,1m0s"},
		{Disruption{Index: 2, Action: "RestartMember", At: time.Minute, Member: "secondary"}, "2,RestartMember,1m0s,member=secondary"},
		{Disruption{Index: 0, Action: "RestartMember", At: 0, Member: "primary"}, "0,RestartMember,0s,member=primary"},
		{Disruption{Index: 9, Action: "RestartMember", At: time.Second, Member: "2"}, "9,RestartMember,1s,member=2"},
		{Disruption{Index: 4, Action: "KillPrimary", At: time.Second, Target: "shard1", Hosts: []string{"r-shard1.r-db:27018", "r-shard1-1.r-db:27018"}},
			"4,KillPrimary,1s,target=shard1,hosts=r-shard1.r-db:27018|r-shard1-1.r-db:27018"},
		{Disruption{Index: 5, Action: "RestartMember", At: time.Second, Member: "secondary", Target: "cfg", Hosts: []string{"r-cfg.r-db:27019", "r-cfg-1.r-db:27019", "r-cfg-2.r-db:27019"}},
			"5,RestartMember,1s,member=secondary,target=cfg,hosts=r-cfg.r-db:27019|r-cfg-1.r-db:27019|r-cfg-2.r-db:27019"},
		{Disruption{Index: 7, Action: "Pause", At: time.Second, Member: "primary", Duration: 15 * time.Second}, "7,Pause,1s,member=primary,duration=15s"},
		{Disruption{Index: 8, Action: "Pause", At: time.Second, Member: "1", Duration: time.Minute, Target: "shard0", Hosts: []string{"a:27018", "b:27018"}},
			"8,Pause,1s,member=1,duration=1m0s,target=shard0,hosts=a:27018|b:27018"},
	} {
		s := EncodeDisruption(tc.d)
		if s != tc.want {
			t.Errorf("encoded %q, want %q", s, tc.want)
		}
		got, err := DecodeDisruption(s)
		if err != nil || !reflect.DeepEqual(got, tc.d) {
			t.Errorf("decoded %+v, %v; want %+v", got, err, tc.d)
		}
		if !ByController(got.Action) || DeletesPod(got.Action) != (got.Action != "Pause") {
			t.Errorf("%s: the controller's, a pod deletion unless a Pause", got.Action)
		}
	}
	if i, ok := (Disruption{Action: "RestartMember", Member: "2"}).MemberIndex(); !ok || i != 2 {
		t.Errorf("member 2: index %d, %v", i, ok)
	}
	if _, ok := (Disruption{Action: "RestartMember", Member: "primary"}).MemberIndex(); ok {
		t.Error("member primary has no index")
	}
	sd := Disruption{Index: 6, Action: "StepDown", At: time.Second, StepDownSecs: 60, CatchUpSecs: 10, Target: "shard0", Hosts: []string{"a:27018", "b:27018"}}
	if got, err := DecodeDisruption(EncodeDisruption(sd)); err != nil || !reflect.DeepEqual(got, sd) {
		t.Errorf("decoded %+v, %v; want %+v", got, err, sd)
	}
	if DeletesPod("StepDown") {
		t.Error("StepDown is a command, not a pod deletion")
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
		{"0,Freeze,1s", "unknown action"},
		{"0,Pause,1s,member=primary", "Pause needs member"},
		{"0,Pause,1s,duration=5s", "Pause needs member"},
		{"0,Pause,1s,member=primary,duration=0s", "want a Go duration > 0"},
		{"0,KillPrimary,1s,duration=5s", "unknown key"},
		{"0,RestartMember,1s", "RestartMember needs member"},
		{"0,RestartMember,1s,member=arbiter", "want primary, secondary or an index"},
		{"0,RestartMember,1s,member=-1", "want primary, secondary or an index"},
		{"0,KillPrimary,1s,member=1", "unknown key"},
		{"0,KillMongos,1s,member=0", "unknown key"},
		{"0,KillPrimary,1s,stepDownSecs=60", "unknown key"},
		{"0,RestartMember,1s,member=1,catchUpSecs=10", "unknown key"},
		{"0,StepDown,1s,member=1,stepDownSecs=60,catchUpSecs=10", "unknown key \"member\" for StepDown"},
		{"0,StepDown,1s,stepDownSecs=60", "greater than"},
		{"0,StepDown,1s,stepDownSecs=10,catchUpSecs=10", "greater than"},
		{"0,StepDown,1s,stepDownSecs=60,catchUpSecs=10,force=1", "unknown key"},
		{"0,StepDown,1s,stepDownSecs=x,catchUpSecs=10", "key=number"},
		{"0,KillPrimary,1s,target=shard0", "target and hosts go together"},
		{"0,KillPrimary,1s,hosts=a:1", "target and hosts go together"},
		{"0,KillPrimary,1s,target=shard0,hosts=a", "want host:port"},
		{"0,KillPrimary,1s,target=shard0,hosts=a:1|", "want host:port"},
		{"0,KillPrimary,1s,target=,hosts=a:1", "want a replica set's name"},
		{"0,KillMongos,1s,target=shard0,hosts=a:1", "unknown key"},
	} {
		if _, err := DecodeDisruption(tc.in); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want it to mention %q", tc.in, err, tc.want)
		}
	}
}
