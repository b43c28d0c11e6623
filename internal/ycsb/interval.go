package ycsb

import (
	"fmt"
	"math"
	"time"

	"github.com/mongobench/mongobench/internal/contract"
)

// MeasurementInterval is YCSB's measurement.interval: which latency the
// report shows. YCSB 0.17.0 (core/.../measurements/Measurements.java)
// parses "op" (0), "intended" (1) and "both" (2):
//
//   - op: the service time, from the call to its return (the default);
//   - intended: the intended latency, from the moment the throttle meant
//     the operation to start (threadStart + i·tick under a target) to its
//     return, reported under the operations' own names;
//   - both: the service times, then the intended latencies as
//     "Intended-<OP>" measurements.
//
// The loader keeps the service times in every mode (the phase's status
// and its regression metrics need them) and the intended latencies
// whenever the mode is not op; the mode decides what the text report
// prints.
type MeasurementInterval uint8

// Measurement intervals.
const (
	IntervalOp MeasurementInterval = iota
	IntervalIntended
	IntervalBoth
)

// IntendedPrefix names the intended-latency measurements in mode both:
// YCSB's getOpIntendedMeasurement uses "Intended-" + operation (so
// "[Intended-READ]" in the report).
const IntendedPrefix = "Intended-"

// WarmupPrefix names the warm-up's measurements in the text report
// ("[WARMUP-READ]"), which YCSB does not have: parsers of YCSB reports
// see them as operations of their own and leave the phase's alone.
const WarmupPrefix = "WARMUP-"

var intervalNames = [...]string{IntervalOp: "op", IntervalIntended: "intended", IntervalBoth: "both"}

// String is the property's value.
func (m MeasurementInterval) String() string {
	if int(m) < len(intervalNames) {
		return intervalNames[m]
	}
	return fmt.Sprintf("MeasurementInterval(%d)", m)
}

// Intended reports whether intended latencies are measured.
func (m MeasurementInterval) Intended() bool { return m == IntervalIntended || m == IntervalBoth }

// ParseMeasurementInterval parses measurement.interval's value.
func ParseMeasurementInterval(s string) (MeasurementInterval, error) {
	for i, n := range intervalNames {
		if s == n {
			return MeasurementInterval(i), nil
		}
	}
	// YCSB: IllegalArgumentException("unknown measurement.interval=" + ...).
	return IntervalOp, fmt.Errorf("measurement.interval: unknown value %q (op, intended or both)", s)
}

// Warm-up properties (contract.PropWarmupTime, PropWarmupOperations).
// YCSB has no warm-up (YCSB#422 has been open since 2015); go-ycsb's
// warmuptime is seconds of run phase whose samples it drops. Here a
// warm-up is the start of the phase's operation stream, run like the rest
// (same threads, same throttle) into histograms of its own, so that it is
// reported apart and never counted in the phase's operations, throughput
// or percentiles.

// warmupFromProperties reads warmuptime and warmupoperations (at most one).
func warmupFromProperties(p *Properties) (time.Duration, int64, error) {
	secs, err := p.Float64(contract.PropWarmupTime, 0)
	if err != nil {
		return 0, 0, err
	}
	ops, err := p.Int64(contract.PropWarmupOperations, 0)
	if err != nil {
		return 0, 0, err
	}
	switch {
	case secs < 0 || math.IsNaN(secs) || math.IsInf(secs, 0) || secs > 1e9:
		return 0, 0, fmt.Errorf("%s: %v must be a number of seconds, at least 0", contract.PropWarmupTime, secs)
	case ops < 0:
		return 0, 0, fmt.Errorf("%s: %d must not be negative", contract.PropWarmupOperations, ops)
	case secs > 0 && ops > 0:
		return 0, 0, fmt.Errorf("set %s or %s, not both", contract.PropWarmupTime, contract.PropWarmupOperations)
	}
	return time.Duration(secs * float64(time.Second)), ops, nil
}
