package contract

import (
	"fmt"
	"net"
	"strconv"
	"strings"
)

// TelemetryKey is the binaryData key of a phase's server telemetry in the
// result ConfigMap of its loader 0 (the only loader that samples):
// gzip(JSON(telemetry.Payload)), at most MaxTelemetryBytes. The key is
// absent when telemetry is off, and from the other loaders' ConfigMaps.
const TelemetryKey = "telemetry.json.gz"

// MaxTelemetryBytes bounds TelemetryKey's value. With the result's own
// bound (results.MaxEncodedBytes, 512 KiB) the ConfigMap stays at most
// 960 KiB, under the API server's 1 MiB. The loader drops the collection's
// growth, then thins the series, to stay under it.
const MaxTelemetryBytes = 448 << 10

// Flags of server telemetry, taken by `loader load|run` (without their
// leading dashes). Telemetry is on when at least one FlagTelemetryProcess
// is given; only the loader with index 0 samples.
const (
	// FlagTelemetryProcess is a MongoDB process to sample
	// (EncodeTelemetryProcess); repeated, one per process.
	FlagTelemetryProcess = "telemetry-process"
	// FlagTelemetryInterval is the sampling interval (a Go duration, e.g.
	// "1s").
	FlagTelemetryInterval = "telemetry-interval"
	// FlagTelemetryCollection is the collection whose storage statistics
	// are taken at the end of the phase (EncodeTelemetryCollection).
	FlagTelemetryCollection = "telemetry-collection"
	// FlagTelemetryCollectionEvery takes them during the phase as well,
	// every so often (a Go duration; Load phases: "10s").
	FlagTelemetryCollectionEvery = "telemetry-collection-every"
)

// TelemetryProcess is one MongoDB process to sample, as
// FlagTelemetryProcess carries it. The loader connects to Address alone
// (directConnection=true).
type TelemetryProcess struct {
	// Role is standalone, configsvr, shard or mongos (the API's
	// ProcessRole).
	Role string
	// Pod is the pod running the process.
	Pod string
	// Address is host:port of the process itself (its pod's stable DNS
	// name), not of a Service in front of several.
	Address string
}

// EncodeTelemetryProcess is the FlagTelemetryProcess value of p:
// "ROLE,POD,HOST:PORT", e.g.
// "shard,r1-shard0,r1-shard0.r1-db.bench.svc.cluster.local:27018". No field
// may contain a comma; roles, pod names and DNS names never do.
func EncodeTelemetryProcess(p TelemetryProcess) string {
	return strings.Join([]string{p.Role, p.Pod, p.Address}, ",")
}

// DecodeTelemetryProcess parses EncodeTelemetryProcess' form. Spaces around
// a field are ignored; every field must be set and the address must be
// host:port.
func DecodeTelemetryProcess(s string) (TelemetryProcess, error) {
	f, err := fields(s, "ROLE,POD,HOST:PORT", "ROLE, POD and HOST:PORT")
	if err != nil {
		return TelemetryProcess{}, fmt.Errorf("telemetry process %w", err)
	}
	if err := checkAddress(f[2]); err != nil {
		return TelemetryProcess{}, fmt.Errorf("telemetry process %q: %w", s, err)
	}
	return TelemetryProcess{Role: f[0], Pod: f[1], Address: f[2]}, nil
}

// TelemetryCollection is the benchmark collection as
// FlagTelemetryCollection carries it: reached through Address (mongos for
// a sharded cluster, else the mongod), in Database.
type TelemetryCollection struct {
	Address    string
	Database   string
	Collection string
}

// EncodeTelemetryCollection is the FlagTelemetryCollection value of c:
// "HOST:PORT,DATABASE,COLLECTION". No field may contain a comma.
func EncodeTelemetryCollection(c TelemetryCollection) string {
	return strings.Join([]string{c.Address, c.Database, c.Collection}, ",")
}

// DecodeTelemetryCollection parses EncodeTelemetryCollection's form, with
// the rules of DecodeTelemetryProcess.
func DecodeTelemetryCollection(s string) (TelemetryCollection, error) {
	f, err := fields(s, "HOST:PORT,DATABASE,COLLECTION", "HOST:PORT, DATABASE and COLLECTION")
	if err != nil {
		return TelemetryCollection{}, fmt.Errorf("telemetry collection %w", err)
	}
	if err := checkAddress(f[0]); err != nil {
		return TelemetryCollection{}, fmt.Errorf("telemetry collection %q: %w", s, err)
	}
	return TelemetryCollection{Address: f[0], Database: f[1], Collection: f[2]}, nil
}

// fields splits s at commas into exactly three trimmed, non-empty fields.
// Errors start with s quoted, for the caller to prefix.
func fields(s, form, names string) ([]string, error) {
	parts := strings.Split(s, ",")
	if len(parts) != 3 {
		return nil, fmt.Errorf("%q: want %s", s, form)
	}
	for i, p := range parts {
		parts[i] = strings.TrimSpace(p)
		if parts[i] == "" {
			return nil, fmt.Errorf("%q: %s must all be set", s, names)
		}
	}
	return parts, nil
}

// checkAddress accepts host:port with a port from 1 to 65535.
func checkAddress(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("address %q: want host:port", addr)
	}
	if n, err := strconv.Atoi(port); host == "" || err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("address %q: want host:port with a port from 1 to 65535", addr)
	}
	return nil
}
