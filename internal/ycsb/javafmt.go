package ycsb

import (
	"math"
	"strconv"
)

// Java number formatting, needed for byte-compatible output: existing YCSB
// parsers read the text report and the status line as Java prints them.

// AppendJavaDouble appends f as Java's Double.toString(double) prints it:
// the shortest decimal that round-trips (JDK 19+ semantics, which Go's
// strconv shortest formatting also implements), laid out in plain notation
// with at least one fractional digit when 1e-3 <= |f| < 1e7 ("1000.0",
// "98911.96834817013", "0.001"), otherwise in computerized scientific
// notation ("1.0E7", "1.234E-5"). NaN and infinities print as Java does.
func AppendJavaDouble(dst []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, "NaN"...)
	case math.IsInf(f, 1):
		return append(dst, "Infinity"...)
	case math.IsInf(f, -1):
		return append(dst, "-Infinity"...)
	case f == 0:
		if math.Signbit(f) {
			return append(dst, "-0.0"...)
		}
		return append(dst, "0.0"...)
	}
	if f < 0 {
		dst = append(dst, '-')
		f = -f
	}
	// Shortest round-trip digits d1.d2d3...e±XX.
	var buf [32]byte
	e := strconv.AppendFloat(buf[:0], f, 'e', -1, 64)
	mant, exp := splitExp(e)
	digits := make([]byte, 0, 20)
	for _, c := range mant {
		if c != '.' {
			digits = append(digits, c)
		}
	}
	if f >= 1e-3 && f < 1e7 {
		// Plain notation: the decimal point goes after exp+1 digits.
		point := exp + 1
		switch {
		case point <= 0:
			dst = append(dst, '0', '.')
			for i := 0; i < -point; i++ {
				dst = append(dst, '0')
			}
			dst = append(dst, digits...)
		case point >= len(digits):
			dst = append(dst, digits...)
			for i := len(digits); i < point; i++ {
				dst = append(dst, '0')
			}
			dst = append(dst, '.', '0')
		default:
			dst = append(dst, digits[:point]...)
			dst = append(dst, '.')
			dst = append(dst, digits[point:]...)
		}
		return dst
	}
	dst = append(dst, digits[0], '.')
	if len(digits) == 1 {
		dst = append(dst, '0')
	} else {
		dst = append(dst, digits[1:]...)
	}
	dst = append(dst, 'E')
	return strconv.AppendInt(dst, int64(exp), 10)
}

// FormatJavaDouble returns Java's Double.toString(f).
func FormatJavaDouble(f float64) string { return string(AppendJavaDouble(nil, f)) }

// splitExp splits strconv's "d.ddde±XX" into mantissa and exponent.
func splitExp(b []byte) ([]byte, int) {
	for i, c := range b {
		if c == 'e' {
			exp, _ := strconv.Atoi(string(b[i+1:]))
			return b[:i], exp
		}
	}
	return b, 0
}

// formatDecimal2 formats f like java.text.DecimalFormat("#.##"): at most two
// fractional digits, rounded half-even on the exact binary value (which is
// what strconv does too), trailing zeros and a bare point dropped, no
// grouping. YCSB uses it for the status line.
func formatDecimal2(f float64) string {
	if math.IsNaN(f) {
		return "NaN"
	}
	if math.IsInf(f, 1) {
		return "∞"
	}
	if math.IsInf(f, -1) {
		return "-∞"
	}
	s := strconv.FormatFloat(f, 'f', 2, 64)
	for len(s) > 0 && s[len(s)-1] == '0' {
		s = s[:len(s)-1]
	}
	s = trimSuffixByte(s, '.')
	if s == "-0" {
		// DecimalFormat prints negative values that round to zero as "-0".
		return "-0"
	}
	return s
}

func trimSuffixByte(s string, b byte) string {
	if len(s) > 0 && s[len(s)-1] == b {
		return s[:len(s)-1]
	}
	return s
}

// javaLong converts like Java's (long) cast: truncation toward zero, NaN to
// 0, and saturation at the int64 range. Go leaves out-of-range conversions
// implementation-defined (amd64 yields MinInt64), which would break YCSB's
// arithmetic in corner cases such as an empty Zipfian range.
func javaLong(f float64) int64 {
	switch {
	case math.IsNaN(f):
		return 0
	case f >= 9.223372036854775807e18:
		return math.MaxInt64
	case f <= -9.223372036854775808e18:
		return math.MinInt64
	}
	return int64(f)
}

// javaInt converts like Java's (int) cast of a double, widened to int64.
func javaInt(f float64) int64 {
	return min(max(javaLong(f), math.MinInt32), math.MaxInt32)
}
