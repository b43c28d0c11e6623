package ycsb

import (
	"bytes"
	"strconv"
	"testing"
)

func TestFillChunkFromKnownRandom(t *testing.T) {
	for _, tc := range []struct {
		r    uint32
		n    int
		want string
	}{
		{0, 6, "      "},
		// r = 0xFFFFFFFF: b0=' '+31, b1=' '+63, b2=' '+95, b3=' '+31, b4=' '+63, b5=' '+95.
		{0xFFFFFFFF, 6, "?_\u007f?_\u007f"},
		// A partial chunk is the prefix of the full one.
		{0xFFFFFFFF, 4, "?_\u007f?"},
		{0xFFFFFFFF, 1, "?"},
		// The masks overlap: b1 = (r>>5)&63 also sees bit 10, which 3<<10
		// sets, so b1 = 2|32 -> 'B'; b2 = (r>>10)&95 = 3; b3 = 4; b4 = 5
		// (6<<5 falls outside 63); b5 = 6.
		{1 | 2<<5 | 3<<10 | 4<<15 | 5<<20 | 6<<25, 6, "!B#$%&"},
		// Bits past each mask are ignored: 0x80000000 sets bit 31, which
		// only b5's mask (95 = 0b1011111) covers, as bit 6 -> ' '+64.
		{0x80000000, 6, "     `"},
	} {
		b := make([]byte, tc.n)
		fillChunk(b, tc.r)
		if string(b) != tc.want {
			t.Errorf("fillChunk(%#x, %d) = %q, want %q", tc.r, tc.n, b, tc.want)
		}
	}
}

func TestFillRandomValueUsesOneNumberPerSixBytes(t *testing.T) {
	for _, n := range []int{0, 1, 5, 6, 7, 15, 100, 1000} {
		r1, r2 := NewRand(7), NewRand(7)
		got := make([]byte, n)
		FillRandomValue(got, r1)
		want := make([]byte, n)
		for off := 0; off < n; off += 6 {
			fillChunk(want[off:min(off+6, n)], uint32(r2.NextInt()))
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("FillRandomValue(%d bytes) = %q, want %q", n, got, want)
		}
		if *r1 != *r2 {
			t.Fatalf("%d bytes: the generator's state differs from %d NextInt calls", n, (n+5)/6)
		}
		for _, c := range got {
			if c < ' ' || c > ' '+95 {
				t.Fatalf("byte %q outside YCSB's printable range", c)
			}
		}
	}
}

// fillChunks (the assembly loop where the CPU runs it fast) must write the
// bytes the Go loop writes and leave the generator where the Go loop does.
func TestFillChunks(t *testing.T) {
	if !fillChunksAsm {
		t.Log("this CPU runs the Go loop: fillChunks is fillChunksGeneric here")
	}
	for seed := range uint64(50) {
		for _, chunks := range []int{0, 1, 2, 16, 17, 166, 1000} {
			r1, r2 := NewRand(seed), NewRand(seed)
			got, want := make([]byte, chunks*6+2), make([]byte, chunks*6+2)
			fillChunks(got[:chunks*6], r1)
			fillChunksGeneric(want[:chunks*6], r2)
			if !bytes.Equal(got, want) {
				t.Fatalf("seed %d, %d chunks: %q, want %q", seed, chunks, got, want)
			}
			if *r1 != *r2 {
				t.Fatalf("seed %d, %d chunks: the generator's state differs", seed, chunks)
			}
		}
	}
}

func TestAppendDeterministicValue(t *testing.T) {
	// Java: "user1:field0" → append ':' and hashCode("user1:field0:").
	key := []byte("user1")
	got := string(AppendDeterministicValue(nil, key, "field0", 40))
	h := int32(0)
	for _, c := range "user1:field0:" {
		h = 31*h + c
	}
	if len(got) != 40 || got[:13] != "user1:field0:" {
		t.Fatalf("value %q", got)
	}
	if want := "user1:field0:" + itoa32(h); got[:min(len(want), 40)] != want[:min(len(want), 40)] {
		t.Fatalf("value %q does not continue with the hash %s", got, want)
	}
	if got := string(AppendDeterministicValue(nil, key, "field0", 4)); got != "user" {
		t.Fatalf("truncation: %q", got)
	}
	// Deterministic.
	if a, b := AppendDeterministicValue(nil, key, "f", 100), AppendDeterministicValue(nil, key, "f", 100); !bytes.Equal(a, b) {
		t.Fatal("not deterministic")
	}
}

func itoa32(h int32) string { return strconv.FormatInt(int64(h), 10) }
