package ycsb

import (
	"fmt"
	"math"
	"sync"
	"sync/atomic"
)

// Zipfian constants from YCSB.
const (
	// ZipfianConstant is YCSB's default theta.
	ZipfianConstant = 0.99
	// scrambledItemCount is ScrambledZipfianGenerator.ITEM_COUNT (1e10).
	scrambledItemCount = 10_000_000_000
	// scrambledZetan is zeta(ITEM_COUNT, 0.99), precomputed by YCSB.
	scrambledZetan = 26.46902820178302
)

// zetaState is the part of a Zipfian generator that changes when the item
// count grows.
type zetaState struct {
	count int64 // items zetan was computed for (YCSB's countforzeta)
	zetan float64
	eta   float64
}

// sharedZeta publishes a zetaState to concurrent readers without a lock and
// without allocating: a sequence lock over atomic fields. The writer (under
// the generator's mutex) makes the sequence odd, stores, makes it even;
// readers retry while it is odd or changed under them. With "latest" the
// item count grows with every insert, so publishing must be cheap.
type sharedZeta struct {
	seq   atomic.Uint64
	count atomic.Int64
	zetan atomic.Uint64 // float64 bits
	eta   atomic.Uint64 // float64 bits
}

func (s *sharedZeta) load() zetaState {
	for {
		seq := s.seq.Load()
		if seq&1 == 0 {
			st := zetaState{
				count: s.count.Load(),
				zetan: math.Float64frombits(s.zetan.Load()),
				eta:   math.Float64frombits(s.eta.Load()),
			}
			if s.seq.Load() == seq {
				return st
			}
		}
	}
}

// store publishes st; callers serialise stores.
func (s *sharedZeta) store(st zetaState) {
	s.seq.Add(1)
	s.count.Store(st.count)
	s.zetan.Store(math.Float64bits(st.zetan))
	s.eta.Store(math.Float64bits(st.eta))
	s.seq.Add(1)
}

// ZipfianGenerator is YCSB's ZipfianGenerator (Gray et al., "Quickly
// Generating Billion-Record Synthetic Databases", SIGMOD'94): item min is the
// most popular, min+1 the next, and so on.
type ZipfianGenerator struct {
	base, items     int64
	theta, alpha    float64
	zeta2theta      float64
	halfPowTheta    float64 // 0.5^theta
	oneMinusTheta   float64
	twoOverItemsPow float64 // (2/items)^(1-theta), with YCSB's constructor items

	state sharedZeta
	mu    sync.Mutex // serialises zeta extensions
}

// NewZipfianGenerator returns a generator over [min, max] with theta 0.99.
func NewZipfianGenerator(min, max int64) (*ZipfianGenerator, error) {
	return NewZipfianGeneratorTheta(min, max, ZipfianConstant)
}

// NewZipfianGeneratorTheta returns a generator over [min, max] with the given
// Zipfian constant; computing zeta costs O(max-min) at construction.
func NewZipfianGeneratorTheta(min, max int64, theta float64) (*ZipfianGenerator, error) {
	if theta <= 0 || theta >= 1 {
		return nil, fmt.Errorf("zipfian generator: constant %v outside (0, 1)", theta)
	}
	if max-min+1 < 0 {
		return nil, fmt.Errorf("zipfian generator: empty range [%d, %d]", min, max)
	}
	return newZipfian(min, max, theta, zetaStatic(0, max-min+1, theta, 0)), nil
}

// newZipfian builds the generator with a precomputed zetan, like YCSB's
// four-argument constructor. YCSB tolerates max = min-1 (zero items: the
// "latest" generator right after an empty load) and so do we.
func newZipfian(min, max int64, theta, zetan float64) *ZipfianGenerator {
	z := &ZipfianGenerator{
		base:          min,
		items:         max - min + 1,
		theta:         theta,
		alpha:         1 / (1 - theta),
		zeta2theta:    1 + 1/javaPow(2, theta), // YCSB's zeta(2, theta)
		halfPowTheta:  javaPow(0.5, theta),
		oneMinusTheta: 1 - theta,
	}
	// Constants use a correctly rounded pow so they match Java's exactly.
	z.twoOverItemsPow = javaPow(2/float64(z.items), z.oneMinusTheta)
	z.state.store(zetaState{count: z.items, zetan: zetan, eta: z.eta(zetan)})
	return z
}

// eta computes YCSB's eta. Like YCSB it always uses the item count given at
// construction, even after zetan was extended for a larger count (YCSB's
// nextLong recomputes eta with the field "items", not with the new count);
// the effect is negligible and keeps the draws identical to YCSB's.
func (z *ZipfianGenerator) eta(zetan float64) float64 {
	return (1 - z.twoOverItemsPow) / (1 - z.zeta2theta/zetan)
}

// zetaStatic adds the terms st+1 .. n of the zeta sum to initial.
func zetaStatic(st, n int64, theta, initial float64) float64 {
	sum := initial
	for i := st; i < n; i++ {
		sum += 1 / math.Pow(float64(i+1), theta)
	}
	return sum
}

// Next draws from the generator's own item count.
func (z *ZipfianGenerator) Next(r *Rand) int64 { return z.NextN(r, z.items) }

// NextN draws for itemcount items (YCSB's nextLong(itemcount)). When the
// count has grown past the one zeta was computed for, zeta is extended
// incrementally under a lock and republished (no allocation); that happens
// once per new count, not per draw. A smaller count (a worker that read an older "last"
// value) reuses the larger zeta, as YCSB does with allowitemcountdecrease
// false.
func (z *ZipfianGenerator) NextN(r *Rand, itemcount int64) int64 {
	st := z.state.load()
	if itemcount > st.count {
		st = z.extend(itemcount)
	}
	u := r.NextDouble()
	uz := u * st.zetan
	if uz < 1 {
		return z.base
	}
	if uz < 1+z.halfPowTheta {
		return z.base + 1
	}
	return z.base + javaLong(float64(itemcount)*math.Pow(st.eta*u-st.eta+1, z.alpha))
}

func (z *ZipfianGenerator) extend(itemcount int64) zetaState {
	z.mu.Lock()
	defer z.mu.Unlock()
	st := z.state.load()
	if itemcount <= st.count {
		return st // another worker extended it meanwhile
	}
	zetan := zetaStatic(st.count, itemcount, z.theta, st.zetan)
	next := zetaState{count: itemcount, zetan: zetan, eta: z.eta(zetan)}
	z.state.store(next)
	return next
}

// ScrambledZipfianGenerator is YCSB's ScrambledZipfianGenerator: Zipfian
// popularity over a fixed space of 1e10 items, scattered over [min, max] by
// FNV hashing, so the popular items are not clustered and the popularity of
// an item does not depend on the range size.
type ScrambledZipfianGenerator struct {
	gen       *ZipfianGenerator
	min       int64
	itemcount int64
}

// NewScrambledZipfianGenerator returns a generator over [min, max]. It uses
// YCSB's precomputed zeta for 1e10 items and theta 0.99, so construction is
// O(1).
func NewScrambledZipfianGenerator(min, max int64) (*ScrambledZipfianGenerator, error) {
	if max < min {
		return nil, fmt.Errorf("scrambled zipfian generator: empty range [%d, %d]", min, max)
	}
	return &ScrambledZipfianGenerator{
		// YCSB constructs ZipfianGenerator(0, ITEM_COUNT): ITEM_COUNT+1 items.
		gen:       newZipfian(0, scrambledItemCount, ZipfianConstant, scrambledZetan),
		min:       min,
		itemcount: max - min + 1,
	}, nil
}

// Next draws one value.
func (g *ScrambledZipfianGenerator) Next(r *Rand) int64 {
	return g.scramble(g.gen.Next(r))
}

// scramble maps a Zipfian rank to a value: min + fnv(rank) % itemcount.
func (g *ScrambledZipfianGenerator) scramble(rank int64) int64 {
	return g.min + FNVHash64(rank)%g.itemcount
}

// Eta exposes the underlying generator's eta (a check value in tests).
func (g *ScrambledZipfianGenerator) Eta() float64 { return g.gen.state.load().eta }

// LastValuer is anything with a moving "last" value: an AcknowledgedCounter,
// a CounterGenerator, or the workload's per-loader insert sequence.
type LastValuer interface {
	Last() int64
}

// SkewedLatestGenerator is YCSB's SkewedLatestGenerator: values near
// basis.Last() are the most popular (last - zipfian(last)).
type SkewedLatestGenerator struct {
	basis LastValuer
	zipf  *ZipfianGenerator
}

// NewSkewedLatestGenerator returns the generator; building zeta costs
// O(basis.Last()).
func NewSkewedLatestGenerator(basis LastValuer) (*SkewedLatestGenerator, error) {
	last := basis.Last()
	if last < 0 {
		last = 0
	}
	// YCSB: new ZipfianGenerator(basis.lastValue()) = range [0, last-1].
	z, err := NewZipfianGenerator(0, last-1)
	if err != nil {
		return nil, fmt.Errorf("latest generator: %w", err)
	}
	return &SkewedLatestGenerator{basis: basis, zipf: z}, nil
}

// Next draws one value in [0, basis.Last()].
func (g *SkewedLatestGenerator) Next(r *Rand) int64 {
	last := g.basis.Last()
	return last - g.zipf.NextN(r, last)
}
