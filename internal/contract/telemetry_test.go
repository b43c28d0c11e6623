package contract

import (
	"strings"
	"testing"
)

func TestTelemetryProcessRoundTrip(t *testing.T) {
	for _, p := range []TelemetryProcess{
		{"standalone", "r1-mongod", "r1-mongod.r1-db.bench.svc.cluster.local:27017"},
		{"shard", "r1-shard15", "r1-shard15.r1-db.bench.svc.cluster.local:27018"},
		{"configsvr", "r1-cfg", "r1-cfg.r1-db.bench.svc.example.org:27019"},
		{"mongos", "m", "10.0.0.7:1"},
		{"mongos", "m", "[::1]:65535"},
	} {
		enc := EncodeTelemetryProcess(p)
		got, err := DecodeTelemetryProcess(enc)
		if err != nil || got != p {
			t.Errorf("DecodeTelemetryProcess(%q) = %+v, %v; want %+v", enc, got, err, p)
		}
	}
	got, err := DecodeTelemetryProcess(" shard , p ,h:2 ")
	if want := (TelemetryProcess{"shard", "p", "h:2"}); err != nil || got != want {
		t.Errorf("spaces: %+v, %v", got, err)
	}
}

func TestDecodeTelemetryProcessMalformed(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", `telemetry process "": want ROLE,POD,HOST:PORT`},
		{"shard,p", "want ROLE,POD,HOST:PORT"},
		{"shard,p,h:1,extra", "want ROLE,POD,HOST:PORT"},
		{"shard,,h:1", `telemetry process "shard,,h:1": ROLE, POD and HOST:PORT must all be set`},
		{" ,p,h:1", "must all be set"},
		{"shard,p,h", `telemetry process "shard,p,h": address "h": want host:port`},
		{"shard,p,:27017", "want host:port with a port from 1 to 65535"},
		{"shard,p,h:0", "a port from 1 to 65535"},
		{"shard,p,h:65536", "a port from 1 to 65535"},
		{"shard,p,h:port", "a port from 1 to 65535"},
		{"shard,p,mongodb://h:1", "want host:port"},
		// A comma inside a field cannot be carried: it shows as a wrong
		// number of fields, never as a different process.
		{EncodeTelemetryProcess(TelemetryProcess{"shard", "a,b", "h:1"}), "want ROLE,POD,HOST:PORT"},
	} {
		if p, err := DecodeTelemetryProcess(tc.in); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("DecodeTelemetryProcess(%q) = %+v, %v; want an error containing %q", tc.in, p, err, tc.want)
		}
	}
}

func TestTelemetryCollectionRoundTrip(t *testing.T) {
	c := TelemetryCollection{"r1-mongo.bench.svc.cluster.local:27017", "ycsb", "usertable"}
	enc := EncodeTelemetryCollection(c)
	if enc != "r1-mongo.bench.svc.cluster.local:27017,ycsb,usertable" {
		t.Errorf("EncodeTelemetryCollection = %q", enc)
	}
	if got, err := DecodeTelemetryCollection(enc); err != nil || got != c {
		t.Errorf("DecodeTelemetryCollection(%q) = %+v, %v", enc, got, err)
	}
	for _, tc := range []struct{ in, want string }{
		{"", `telemetry collection "": want HOST:PORT,DATABASE,COLLECTION`},
		{"h:1,ycsb", "want HOST:PORT,DATABASE,COLLECTION"},
		{"h:1,ycsb,", "HOST:PORT, DATABASE and COLLECTION must all be set"},
		{"ycsb,usertable,h:1", `address "ycsb": want host:port`},
		{"h:99999,ycsb,usertable", "a port from 1 to 65535"},
	} {
		if got, err := DecodeTelemetryCollection(tc.in); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("DecodeTelemetryCollection(%q) = %+v, %v; want an error containing %q", tc.in, got, err, tc.want)
		}
	}
}

// The telemetry's key is not the result's: both live in one ConfigMap.
func TestTelemetryKeyIsItsOwn(t *testing.T) {
	if TelemetryKey == ConfigMapKey || TelemetryKey == BootstrapConfigMapKey {
		t.Errorf("TelemetryKey %q collides", TelemetryKey)
	}
}
