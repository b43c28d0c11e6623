package ycsb

import (
	"math"
	"testing"
)

func TestFormatJavaDouble(t *testing.T) {
	for _, tc := range []struct {
		f    float64
		want string
	}{
		// 1e9/10110: shortest repr. (JDK <= 18 printed ...013, see report.go.)
		{1000.0 * 1000000 / 10110, "98911.96834817012"},
		{1000, "1000.0"},
		{554, "554.0"},
		{0, "0.0"},
		{math.Copysign(0, -1), "-0.0"},
		{0.5, "0.5"},
		{0.001, "0.001"},
		{0.00099, "9.9E-4"},
		{1e-5, "1.0E-5"},
		{1234567.125, "1234567.125"},
		{9999999.0, "9999999.0"},
		{1e7, "1.0E7"},
		{12345678.9, "1.23456789E7"},
		{-2.5, "-2.5"},
		{1.0 / 3, "0.3333333333333333"},
		{100.1, "100.1"},
		{99.9, "99.9"},
		{math.Inf(1), "Infinity"},
		{math.Inf(-1), "-Infinity"},
		{math.NaN(), "NaN"},
		{1e21, "1.0E21"},
		{123456789012, "1.23456789012E11"},
	} {
		if got := FormatJavaDouble(tc.f); got != tc.want {
			t.Errorf("FormatJavaDouble(%v) = %q, want %q", tc.f, got, tc.want)
		}
	}
}

func TestFormatDecimal2(t *testing.T) {
	for _, tc := range []struct {
		f    float64
		want string
	}{
		{7002.164, "7002.16"},
		{0, "0"},
		{12.5, "12.5"},
		{12.0, "12"},
		{0.125, "0.12"}, // exact tie: half-even
		{0.135, "0.14"}, // 0.135 is slightly above the tie in binary
		{1234567.899, "1234567.9"},
		{-0.001, "-0"},
	} {
		if got := formatDecimal2(tc.f); got != tc.want {
			t.Errorf("formatDecimal2(%v) = %q, want %q", tc.f, got, tc.want)
		}
	}
}

func TestJavaCasts(t *testing.T) {
	for _, tc := range []struct {
		f    float64
		want int64
	}{
		{math.NaN(), 0},
		{math.Inf(1), math.MaxInt64},
		{math.Inf(-1), math.MinInt64},
		{1e300, math.MaxInt64},
		{-2.9, -2},
		{2.9, 2},
	} {
		if got := javaLong(tc.f); got != tc.want {
			t.Errorf("javaLong(%v) = %d, want %d", tc.f, got, tc.want)
		}
	}
	if javaInt(1e12) != math.MaxInt32 || javaInt(-1e12) != math.MinInt32 {
		t.Error("javaInt does not saturate")
	}
}

func TestJavaPowCorrectlyRounded(t *testing.T) {
	// glibc's and Java's pow agree on this one; math.Pow is one ulp off.
	// (Runtime arithmetic: the constant expression 1-0.99 would be exact.)
	theta, items := 0.99, float64(10000000001)
	if got := javaPow(2/items, 1-theta); got != 0.7998532245215714 {
		t.Errorf("javaPow = %v, want 0.7998532245215714", got)
	}
	for _, tc := range [][2]float64{{2, 10}, {0.5, 0.99}, {3, 0.5}, {10, -2}} {
		if got, want := javaPow(tc[0], tc[1]), math.Pow(tc[0], tc[1]); math.Abs(got-want) > 2e-16*math.Abs(want) {
			t.Errorf("javaPow(%v, %v) = %v, math.Pow %v", tc[0], tc[1], got, want)
		}
	}
}
