package ycsb

import (
	"math"
	"testing"
)

func TestBuildKeyNameHashedVectors(t *testing.T) {
	for _, tc := range []struct {
		keynum int64
		want   string
	}{
		{0, "user6284781860667377211"},
		{1, "user8517097267634966620"},
		{2, "user1820151046732198393"},
		{3, "user4052466453699787802"},
		{999, "user2071219101098386137"},
		{1000000, "user1011632231655643464"},
	} {
		if got := string(BuildKeyName(nil, tc.keynum, 1, false)); got != tc.want {
			t.Errorf("BuildKeyName(%d, hashed) = %s, want %s", tc.keynum, got, tc.want)
		}
	}
}

func TestBuildKeyNameOrderedAndPadding(t *testing.T) {
	for _, tc := range []struct {
		keynum  int64
		padding int
		want    string
	}{
		{5, 1, "user5"},
		{5, 8, "user00000005"},
		{12345, 3, "user12345"},
		{0, 0, "user0"},
		{42, 20, "user00000000000000000042"},
	} {
		if got := string(BuildKeyName(nil, tc.keynum, tc.padding, true)); got != tc.want {
			t.Errorf("BuildKeyName(%d, pad %d, ordered) = %s, want %s", tc.keynum, tc.padding, got, tc.want)
		}
	}
}

func TestBuildKeyNameAppendsWithoutAllocating(t *testing.T) {
	buf := make([]byte, 0, keyBufferSize(1))
	allocs := testing.AllocsPerRun(100, func() {
		buf = BuildKeyName(buf[:0], 123456789, 1, false)
	})
	if allocs != 0 {
		t.Fatalf("BuildKeyName allocated %v times per call", allocs)
	}
	prefix := []byte("x:")
	if got := string(BuildKeyName(prefix, 7, 1, true)); got != "x:user7" {
		t.Fatalf("BuildKeyName does not append: %q", got)
	}
}

func TestFNVHash64MathAbs(t *testing.T) {
	// Whatever the input, the result is non-negative except for the one
	// hash value whose absolute value overflows (Java's Math.abs).
	for _, v := range []int64{0, 1, -1, math.MaxInt64, math.MinInt64, 1 << 40} {
		if h := FNVHash64(v); h < 0 && h != math.MinInt64 {
			t.Errorf("FNVHash64(%d) = %d is negative", v, h)
		}
	}
}
