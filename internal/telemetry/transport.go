package telemetry

import (
	"fmt"

	"github.com/mongobench/mongobench/internal/results"
)

// Transport: loader 0 of a phase carries its Payload to the manager as
// gzip-compressed JSON (the binaryData key contract.TelemetryKey of its
// result ConfigMap), at most a given number of bytes.

// MaxDecodedBytes bounds the decompression of untrusted input (DecodePayload).
const MaxDecodedBytes = results.MaxDecodedBytes

// Trimmed says what EncodePayload left out to fit its limit.
type Trimmed struct {
	// Growth is true when the collection's Growth list was dropped.
	Growth bool
	// Halvings is how many times every series was thinned to half its
	// points (doubling its interval, as a series does when it is full):
	// counter totals stay exact, rates are time-weighted, gauges keep
	// their mean, minimum and maximum.
	Halvings int
}

// EncodePayload serialises r (gzip(JSON)) within limit bytes. When it would
// not fit, it drops the collection's Growth list first (the final
// statistics stay), then halves every process's series until it fits; r
// itself is left unchanged. It fails only when even series of one point
// each do not fit.
func EncodePayload(r *Payload, limit int) ([]byte, Trimmed, error) {
	var trimmed Trimmed
	rr := *r
	for {
		b, err := encodePayload(&rr)
		if err != nil {
			return nil, trimmed, err
		}
		if len(b) <= limit {
			return b, trimmed, nil
		}
		switch {
		case rr.Collection != nil && len(rr.Collection.Growth) > 0:
			c := *rr.Collection
			c.Growth = nil
			rr.Collection = &c
			trimmed.Growth = true
		case thinnable(&rr):
			procs := make([]ProcessPayload, len(rr.Processes))
			for i, p := range rr.Processes {
				p.Series.Points = append([]Point(nil), p.Series.Points...)
				if len(p.Series.Points) > 1 {
					p.Series.coalesce()
				}
				procs[i] = p
			}
			rr.Processes = procs
			trimmed.Halvings++
		default:
			return nil, trimmed, fmt.Errorf("encoded telemetry is %d bytes, more than the %d allowed", len(b), limit)
		}
	}
}

// thinnable reports whether any series has more than one point.
func thinnable(r *Payload) bool {
	for i := range r.Processes {
		if len(r.Processes[i].Series.Points) > 1 {
			return true
		}
	}
	return false
}

func encodePayload(r *Payload) ([]byte, error) {
	return results.GzipJSON(r, "telemetry") //nolint:wrapcheck // its errors name the telemetry
}

// DecodePayload parses EncodePayload's form, refusing a series of an invalid
// shape (Series.Validate) and unknown fields.
func DecodePayload(b []byte) (*Payload, error) {
	var r Payload
	if err := results.GunzipJSON(b, &r, "telemetry"); err != nil {
		return nil, err //nolint:wrapcheck // its errors name the telemetry
	}
	for i := range r.Processes {
		if err := r.Processes[i].Series.Validate(); err != nil {
			return nil, fmt.Errorf("telemetry of %s: %w", r.Processes[i].Pod, err)
		}
	}
	return &r, nil
}
