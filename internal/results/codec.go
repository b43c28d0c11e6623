package results

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Transport: a loader writes its Result into a ConfigMap (binaryData key
// contract.ConfigMapKey) as gzip-compressed JSON. Histograms inside are HdrHistogram
// V2 compressed base64, so the JSON is readable with standard tools after
// gunzip, and the histograms with any HdrHistogram library.
//
// Size: a Result holds at most a dozen operation histograms (~1–6 KiB each
// for real latency spreads) and a series of at most MaxSeriesPoints points
// (~0.1–0.5 KiB per operation per point), typically 20–150 KiB. Encode
// enforces MaxEncodedBytes by coarsening the series; a result that still
// does not fit is an error, never silently truncated. The controller keeps
// each phase's merged result in the same form (DecodeMerged reads it):
// merged histograms hold more distinct values than one loader's, so a
// merge's series is coarsened sooner (TestMergedEncodedSize: 338 KiB for
// one loader of wide spreads, 522 KiB for four, kept as 351 KiB with 60
// points).
const (
	// MaxEncodedBytes keeps a result well inside a ConfigMap's 1 MiB.
	MaxEncodedBytes = 512 << 10
	// MaxDecodedBytes bounds the decompression of untrusted input
	// (GunzipJSON).
	MaxDecodedBytes = 16 << 20
)

// GzipJSON is the transport form of what the Jobs hand the controller
// (results, telemetry): gzip-compressed JSON. what names it in errors.
func GzipJSON(v any, what string) ([]byte, error) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if err := json.NewEncoder(zw).Encode(v); err != nil {
		return nil, fmt.Errorf("encode %s: %w", what, err)
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("compress %s: %w", what, err)
	}
	return buf.Bytes(), nil
}

// GunzipJSON decodes GzipJSON's form into v, refusing input that
// decompresses to more than MaxDecodedBytes, is truncated, or has fields v
// does not know. what names it in errors.
func GunzipJSON(b []byte, v any, what string) error {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("%s is not gzip data: %w", what, err)
	}
	data, err := io.ReadAll(io.LimitReader(zr, MaxDecodedBytes+1))
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("%s is truncated: %w", what, err)
		}
		return fmt.Errorf("decompress %s: %w", what, err)
	}
	if len(data) > MaxDecodedBytes {
		return fmt.Errorf("%s decompresses to more than %d bytes", what, MaxDecodedBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("parse %s: %w", what, err)
	}
	return nil
}

// Encode serialises r for transport, coarsening its series if needed to
// stay within MaxEncodedBytes: its disruptions' series (doubling their
// interval on the instant's grid) while they are longer than the main
// one, then the main one, and so on.
func Encode(r *Result) ([]byte, error) {
	if err := r.Validate(); err != nil {
		return nil, fmt.Errorf("refusing to encode an invalid result: %w", err)
	}
	rr := *r
	for {
		b, err := encode(&rr)
		if err != nil {
			return nil, err
		}
		if len(b) <= MaxEncodedBytes {
			return b, nil
		}
		// The longer of the series is coarsened first: the disruptions'
		// (100 ms, at most 401 points each) while they are longer than
		// the main one, which is kept at the finer grain it has.
		if coarsenDisruptions(&rr) {
			continue
		}
		if len(rr.Series.Points) <= 1 {
			return nil, fmt.Errorf("encoded result is %d bytes, more than the %d allowed", len(b), MaxEncodedBytes)
		}
		s := Series{IntervalMillis: rr.Series.IntervalMillis, Points: append([]Point(nil), rr.Series.Points...)}
		s.coalesce(2)
		rr.Series = s
	}
}

func encode(r *Result) ([]byte, error) { return GzipJSON(r, "result") }

// Decode parses and validates an encoded Result. Truncated, corrupt or
// inconsistent input is an error describing what is wrong.
func Decode(b []byte) (*Result, error) {
	var r Result
	if err := GunzipJSON(b, &r, "result"); err != nil {
		return nil, err
	}
	if err := r.Validate(); err != nil {
		return nil, fmt.Errorf("invalid result: %w", err)
	}
	return &r, nil
}

// DecodeMerged parses and validates a phase's merged result as the
// controller keeps it (Encode of a Merge, in the ConfigMap named by
// status.results[].histograms): the same form as a loader's result, so
// Decode does the work; a merged result is also always loader 0 of n
// (Merge's identity), which tells it from another loader's.
func DecodeMerged(b []byte) (*Result, error) {
	r, err := Decode(b)
	if err != nil {
		return nil, fmt.Errorf("decode merged result: %w", err)
	}
	if r.Loader.Index != 0 {
		return nil, fmt.Errorf("merged result: loader index %d, want 0 (a single loader's result, not a merge)", r.Loader.Index)
	}
	return r, nil
}
