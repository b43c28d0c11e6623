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
// does not fit is an error, never silently truncated.
const (
	// MaxEncodedBytes keeps a result well inside a ConfigMap's 1 MiB.
	MaxEncodedBytes = 512 << 10
	// maxDecodedBytes bounds decompression of untrusted input.
	maxDecodedBytes = 16 << 20
)

// Encode serialises r for transport, coarsening its series if needed to
// stay within MaxEncodedBytes.
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
		if len(rr.Series.Points) <= 1 {
			return nil, fmt.Errorf("encoded result is %d bytes, more than the %d allowed", len(b), MaxEncodedBytes)
		}
		s := Series{IntervalMillis: rr.Series.IntervalMillis, Points: append([]Point(nil), rr.Series.Points...)}
		s.coalesce(2)
		rr.Series = s
	}
}

func encode(r *Result) ([]byte, error) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if err := json.NewEncoder(zw).Encode(r); err != nil {
		return nil, fmt.Errorf("encode result: %w", err)
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("compress result: %w", err)
	}
	return buf.Bytes(), nil
}

// Decode parses and validates an encoded Result. Truncated, corrupt or
// inconsistent input is an error describing what is wrong.
func Decode(b []byte) (*Result, error) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("result is not gzip data: %w", err)
	}
	data, err := io.ReadAll(io.LimitReader(zr, maxDecodedBytes+1))
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("result is truncated: %w", err)
		}
		return nil, fmt.Errorf("decompress result: %w", err)
	}
	if len(data) > maxDecodedBytes {
		return nil, fmt.Errorf("result decompresses to more than %d bytes", maxDecodedBytes)
	}
	var r Result
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("parse result: %w", err)
	}
	if err := r.Validate(); err != nil {
		return nil, fmt.Errorf("invalid result: %w", err)
	}
	return &r, nil
}
