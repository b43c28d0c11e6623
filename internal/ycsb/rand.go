package ycsb

import (
	"crypto/rand"
	"encoding/binary"
	"math/bits"
)

// Rand is a per-worker pseudo-random generator (xoshiro256**). It is not safe
// for concurrent use: every worker owns one, which is what lets generators
// with shared state (counters, Zipfian's zeta) run without a shared lock or a
// shared RNG on the hot path. YCSB uses ThreadLocalRandom to the same end.
//
// The method names follow java.util.Random so the port reads like YCSB.
type Rand struct {
	s0, s1, s2, s3 uint64
}

// NewRand returns a generator seeded deterministically from seed.
func NewRand(seed uint64) *Rand {
	r := &Rand{}
	r.Seed(seed)
	return r
}

// NewRandomRand returns a generator seeded from the operating system.
func NewRandomRand() *Rand {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		// crypto/rand does not fail on Linux; fall back to a fixed seed
		// rather than panicking in a benchmark tool.
		return NewRand(0x9E3779B97F4A7C15)
	}
	return NewRand(binary.LittleEndian.Uint64(b[:]))
}

// Seed resets the state from seed with SplitMix64, as xoshiro's authors
// recommend (it never yields the all-zero state).
func (r *Rand) Seed(seed uint64) {
	x := seed
	r.s0 = splitMix64(&x)
	r.s1 = splitMix64(&x)
	r.s2 = splitMix64(&x)
	r.s3 = splitMix64(&x)
}

func splitMix64(x *uint64) uint64 {
	*x += 0x9E3779B97F4A7C15
	z := *x
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// Uint64 returns 64 uniformly distributed bits.
func (r *Rand) Uint64() uint64 {
	result := bits.RotateLeft64(r.s1*5, 7) * 9
	t := r.s1 << 17
	r.s2 ^= r.s0
	r.s3 ^= r.s1
	r.s1 ^= r.s2
	r.s0 ^= r.s3
	r.s2 ^= t
	r.s3 = bits.RotateLeft64(r.s3, 45)
	return result
}

// xoshiroNext is Uint64 on a state held in scalars: a loop that draws
// many numbers (FillRandomValue) keeps them in registers, which a Rand,
// even a local one, does not (its methods take its address); through
// memory the step took 45% longer. TestFillRandomValueUsesOneNumberPerSixBytes
// checks that both give the same numbers and leave the same state.
func xoshiroNext(s0, s1, s2, s3 uint64) (out, n0, n1, n2, n3 uint64) {
	out = bits.RotateLeft64(s1*5, 7) * 9
	t := s1 << 17
	s2 ^= s0
	s3 ^= s1
	s1 ^= s2
	s0 ^= s3
	s2 ^= t
	s3 = bits.RotateLeft64(s3, 45)
	return out, s0, s1, s2, s3
}

// NextLong is Random.nextLong: any int64, negative values included.
func (r *Rand) NextLong() int64 { return int64(r.Uint64()) }

// NextNonNegativeLong returns a uniform value in [0, 2^63). YCSB computes
// Math.abs(nextLong()) for the same purpose; that has the same distribution
// except that Math.abs(Long.MIN_VALUE) is negative (probability 2^-64), which
// would make a key or field index negative. We avoid that edge.
func (r *Rand) NextNonNegativeLong() int64 { return int64(r.Uint64() >> 1) }

// NextDouble is Random.nextDouble: uniform in [0, 1) with 53 random bits.
func (r *Rand) NextDouble() float64 { return float64(r.Uint64()>>11) * 0x1p-53 }

// NextInt is Random.nextInt(): 32 uniformly distributed bits.
func (r *Rand) NextInt() int32 { return int32(r.Uint64() >> 32) }

// NextIntn is Random.nextInt(bound): uniform in [0, n). It panics if n <= 0,
// like Java. Lemire's multiply-shift with rejection: unbiased, no division on
// the common path.
func (r *Rand) NextIntn(n int32) int32 {
	if n <= 0 {
		panic("ycsb: NextIntn bound must be positive")
	}
	bound := uint64(n)
	hi, lo := bits.Mul64(r.Uint64(), bound)
	if lo < bound {
		thresh := -bound % bound
		for lo < thresh {
			hi, lo = bits.Mul64(r.Uint64(), bound)
		}
	}
	return int32(hi)
}
