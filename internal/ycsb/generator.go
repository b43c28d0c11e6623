package ycsb

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
)

// NumberGenerator is YCSB's NumberGenerator with the randomness made
// explicit: shared state (counters, Zipfian's zeta) lives in the generator
// and may be used by many workers at once, while each worker passes its own
// Rand. Implementations are safe for concurrent use as long as each caller
// passes a Rand it owns.
type NumberGenerator interface {
	Next(r *Rand) int64
}

// ConstantGenerator always returns V (YCSB's ConstantIntegerGenerator).
type ConstantGenerator struct{ V int64 }

// Next returns V.
func (g ConstantGenerator) Next(*Rand) int64 { return g.V }

// UniformGenerator draws uniformly from [lb, ub] (YCSB's UniformLongGenerator:
// lb + abs(nextLong()) % (ub-lb+1)).
type UniformGenerator struct {
	lb, interval int64
}

// NewUniformGenerator returns a generator over [lb, ub]; ub must be >= lb.
func NewUniformGenerator(lb, ub int64) (*UniformGenerator, error) {
	if ub < lb {
		return nil, fmt.Errorf("uniform generator: upper bound %d below lower bound %d", ub, lb)
	}
	return &UniformGenerator{lb: lb, interval: ub - lb + 1}, nil
}

// Next draws one value.
func (g *UniformGenerator) Next(r *Rand) int64 {
	return g.lb + r.NextNonNegativeLong()%g.interval
}

// CounterGenerator hands out start, start+1, ... to any number of workers
// (YCSB's CounterGenerator, an atomic getAndIncrement).
type CounterGenerator struct {
	counter atomic.Int64
}

// NewCounterGenerator returns a counter whose first value is start.
func NewCounterGenerator(start int64) *CounterGenerator {
	g := &CounterGenerator{}
	g.counter.Store(start)
	return g
}

// Next returns the next value; the Rand is unused.
func (g *CounterGenerator) Next(*Rand) int64 { return g.counter.Add(1) - 1 }

// Last returns the last value handed out (start-1 before the first).
func (g *CounterGenerator) Last() int64 { return g.counter.Load() - 1 }

// SequentialGenerator cycles through [start, end] in order, shared by all
// workers (YCSB's SequentialGenerator: start + counter++ % interval).
type SequentialGenerator struct {
	start, interval int64
	counter         atomic.Int64
}

// NewSequentialGenerator returns a generator cycling over [start, end].
func NewSequentialGenerator(start, end int64) (*SequentialGenerator, error) {
	if end < start {
		return nil, fmt.Errorf("sequential generator: end %d below start %d", end, start)
	}
	return &SequentialGenerator{start: start, interval: end - start + 1}, nil
}

// Next returns the next value in the cycle; the Rand is unused.
func (g *SequentialGenerator) Next(*Rand) int64 {
	return g.start + (g.counter.Add(1)-1)%g.interval
}

// HotspotGenerator sends a fraction hotOpn of draws to the first
// int(interval*hotData) values of [lb, ub] and the rest to the others
// (YCSB's HotspotIntegerGenerator).
type HotspotGenerator struct {
	lb, hotInterval, coldInterval int64
	hotOpnFraction                float64
}

// NewHotspotGenerator validates the fractions where YCSB would print a warning
// and silently use 0, or divide by zero later: an error is clearer.
func NewHotspotGenerator(lb, ub int64, hotData, hotOpn float64) (*HotspotGenerator, error) {
	if hotData < 0 || hotData > 1 {
		return nil, fmt.Errorf("hotspot generator: hotspotdatafraction %v outside [0, 1]", hotData)
	}
	if hotOpn < 0 || hotOpn > 1 {
		return nil, fmt.Errorf("hotspot generator: hotspotopnfraction %v outside [0, 1]", hotOpn)
	}
	if ub < lb {
		// YCSB swaps the bounds with a warning.
		lb, ub = ub, lb
	}
	interval := ub - lb + 1
	hot := javaLong(float64(interval) * hotData)
	g := &HotspotGenerator{lb: lb, hotInterval: hot, coldInterval: interval - hot, hotOpnFraction: hotOpn}
	if g.hotInterval == 0 && hotOpn > 0 {
		return nil, fmt.Errorf("hotspot generator: hot set of %d items x %v is empty but hotspotopnfraction is %v", interval, hotData, hotOpn)
	}
	if g.coldInterval == 0 && hotOpn < 1 {
		return nil, fmt.Errorf("hotspot generator: cold set is empty but hotspotopnfraction is %v", hotOpn)
	}
	return g, nil
}

// Next draws one value.
func (g *HotspotGenerator) Next(r *Rand) int64 {
	if r.NextDouble() < g.hotOpnFraction {
		return g.lb + r.NextNonNegativeLong()%g.hotInterval
	}
	return g.lb + g.hotInterval + r.NextNonNegativeLong()%g.coldInterval
}

// ExponentialGenerator draws from an exponential distribution such that a
// fraction percentile/100 of draws fall below rangeLen (YCSB's
// ExponentialGenerator: gamma = -ln(1-pct/100)/range, next = -ln(u)/gamma).
type ExponentialGenerator struct {
	gamma float64
}

// NewExponentialGenerator returns the generator for the given percentile (in
// percent) and range.
func NewExponentialGenerator(percentile, rangeLen float64) (*ExponentialGenerator, error) {
	if percentile <= 0 || percentile >= 100 {
		return nil, fmt.Errorf("exponential generator: exponential.percentile %v outside (0, 100)", percentile)
	}
	if rangeLen <= 0 {
		return nil, fmt.Errorf("exponential generator: range %v must be positive (recordcount*exponential.frac)", rangeLen)
	}
	return &ExponentialGenerator{gamma: -math.Log(1-percentile/100) / rangeLen}, nil
}

// Next draws one value.
func (g *ExponentialGenerator) Next(r *Rand) int64 {
	return javaLong(-math.Log(r.NextDouble()) / g.gamma)
}

// HistogramGenerator draws from a histogram file (YCSB's HistogramGenerator,
// used for fieldlengthdistribution=histogram). The file's first line is
// "BlockSize<TAB>n", then one "bucket<TAB>count" line per bucket in order.
type HistogramGenerator struct {
	blockSize int64
	buckets   []int64
	area      int64
}

// LoadHistogramGenerator reads a histogram file.
func LoadHistogramGenerator(path string) (*HistogramGenerator, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("field length histogram: %w", err)
	}
	defer func() { _ = f.Close() }() // read-only: a close error changes nothing
	sc := bufio.NewScanner(f)
	if !sc.Scan() {
		return nil, fmt.Errorf("field length histogram %s: empty file", path)
	}
	head := strings.Split(sc.Text(), "\t")
	if len(head) < 2 || head[0] != "BlockSize" {
		return nil, fmt.Errorf("field length histogram %s: first line is not BlockSize<TAB>n", path)
	}
	g := &HistogramGenerator{}
	if g.blockSize, err = strconv.ParseInt(strings.TrimSpace(head[1]), 10, 64); err != nil {
		return nil, fmt.Errorf("field length histogram %s: block size: %w", path, err)
	}
	for line := 2; sc.Scan(); line++ {
		parts := strings.Split(sc.Text(), "\t")
		if len(parts) < 2 {
			return nil, fmt.Errorf("field length histogram %s:%d: want bucket<TAB>count", path, line)
		}
		b, err1 := strconv.Atoi(strings.TrimSpace(parts[0]))
		c, err2 := strconv.ParseInt(strings.TrimSpace(parts[1]), 10, 64)
		if err1 != nil || err2 != nil || b != len(g.buckets) || c < 0 {
			return nil, fmt.Errorf("field length histogram %s:%d: want bucket %d<TAB>count", path, line, len(g.buckets))
		}
		g.buckets = append(g.buckets, c)
		g.area += c
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("field length histogram %s: %w", path, err)
	}
	if g.area <= 0 || g.area > math.MaxInt32 {
		return nil, fmt.Errorf("field length histogram %s: total count %d outside [1, 2^31)", path, g.area)
	}
	return g, nil
}

// Next draws one value, with YCSB's bucket arithmetic.
func (g *HistogramGenerator) Next(r *Rand) int64 {
	number := int64(r.NextIntn(int32(g.area)))
	i := 0
	for ; i < len(g.buckets)-1; i++ {
		number -= g.buckets[i]
		if number <= 0 {
			return int64(i+1) * g.blockSize
		}
	}
	return int64(i) * g.blockSize
}

// Max returns the largest value Next can return.
func (g *HistogramGenerator) Max() int64 { return int64(len(g.buckets)) * g.blockSize }
