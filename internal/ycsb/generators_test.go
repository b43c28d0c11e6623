package ycsb

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

const statDraws = 400_000

// within fails unless got is within k standard deviations of a binomial
// proportion p over n draws.
func within(t *testing.T, what string, got, p float64, n int) {
	t.Helper()
	sd := math.Sqrt(p * (1 - p) / float64(n))
	if math.Abs(got-p) > 5*sd+1e-9 {
		t.Errorf("%s: fraction %.5f, want %.5f ± %.5f (5 sd)", what, got, p, 5*sd)
	}
}

func TestScrambledZipfianCheckValues(t *testing.T) {
	g, err := NewScrambledZipfianGenerator(0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if got := g.Eta(); got != 0.21220003380967406 {
		t.Errorf("eta = %v, want 0.21220003380967406", got)
	}
	for rank, want := range []int64{144, 610, 213, 679} {
		if got := g.scramble(int64(rank)); got != want {
			t.Errorf("zipf draw %d -> keynum %d, want %d", rank, got, want)
		}
	}
}

func TestScrambledZipfianStaysInRangeAndIsSkewed(t *testing.T) {
	g, _ := NewScrambledZipfianGenerator(100, 1099)
	r := NewRand(1)
	counts := map[int64]int{}
	for range statDraws {
		v := g.Next(r)
		if v < 100 || v > 1099 {
			t.Fatalf("value %d outside [100, 1099]", v)
		}
		counts[v]++
	}
	// The most popular item is rank 0's image: fnv(0)%1000+100. Its share
	// is at least 1/zeta(1e10) (other ranks may collide onto it).
	top := 100 + FNVHash64(0)%1000
	if got := float64(counts[top]) / statDraws; got < 1/scrambledZetan*0.95 {
		t.Errorf("top item share %.4f, want >= %.4f", got, 1/scrambledZetan)
	}
}

func TestZipfianTopRanks(t *testing.T) {
	const n = 1000
	g, err := NewZipfianGenerator(0, n-1)
	if err != nil {
		t.Fatal(err)
	}
	zetan := zetaStatic(0, n, ZipfianConstant, 0)
	r := NewRand(2)
	counts := make([]int, n)
	for range statDraws {
		v := g.Next(r)
		if v < 0 || v >= n {
			t.Fatalf("value %d outside [0, %d)", v, n)
		}
		counts[v]++
	}
	// Ranks 0 and 1 follow Zipf's law exactly in Gray's method.
	within(t, "rank 0", float64(counts[0])/statDraws, 1/zetan, statDraws)
	within(t, "rank 1", float64(counts[1])/statDraws, math.Pow(0.5, ZipfianConstant)/zetan, statDraws)
	// Ranks >= 2 come from Gray's closed-form approximation; its exact law
	// is P(rank >= k) = 1 - u_k with u_k = 1 + ((k/n)^(1-theta) - 1)/eta
	// (clamped to where ranks 0 and 1 end). Test against that law tightly
	// and against Zipf's law loosely (the approximation is 15-20% off at
	// rank 2 and converges after).
	st := g.state.load()
	uAt := func(k int) float64 {
		u := 1 + (math.Pow(float64(k)/n, 1-ZipfianConstant)-1)/st.eta
		return max(u, (1+math.Pow(0.5, ZipfianConstant))/zetan)
	}
	for rank := 2; rank < 10; rank++ {
		within(t, fmt.Sprintf("rank %d (Gray's law)", rank), float64(counts[rank])/statDraws, uAt(rank+1)-uAt(rank), statDraws)
		zipf := 1 / math.Pow(float64(rank+1), ZipfianConstant) / zetan
		if got := float64(counts[rank]) / statDraws; math.Abs(got-zipf) > 0.25*zipf {
			t.Errorf("rank %d: fraction %.5f, Zipf's law %.5f ± 25%%", rank, got, zipf)
		}
	}
	// Monotone popularity over the head.
	for rank := 1; rank < 10; rank++ {
		if counts[rank] > counts[rank-1]+counts[rank-1]/10 {
			t.Errorf("rank %d (%d draws) more popular than rank %d (%d)", rank, counts[rank], rank-1, counts[rank-1])
		}
	}
}

func TestZipfianIncrementalZeta(t *testing.T) {
	g, _ := NewZipfianGenerator(0, 99)
	r := NewRand(3)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rr := NewRand(uint64(w) + 10)
			for i := range 2000 {
				if v := g.NextN(rr, int64(100+i)); v < 0 || v >= int64(100+i) {
					t.Errorf("NextN(%d) = %d", 100+i, v)
					return
				}
			}
		}()
	}
	wg.Wait()
	st := g.state.load()
	if st.count != 2099 {
		t.Fatalf("zeta computed for %d items, want 2099", st.count)
	}
	if want := zetaStatic(0, 2099, ZipfianConstant, 0); math.Abs(st.zetan-want) > 1e-9 {
		t.Fatalf("incremental zeta %v, from scratch %v", st.zetan, want)
	}
	// A smaller count does not shrink zeta (YCSB: allowitemcountdecrease=false).
	g.NextN(r, 50)
	if g.state.load() != st {
		t.Fatal("a smaller item count recomputed zeta")
	}
}

func TestUniformChiSquare(t *testing.T) {
	const buckets = 100
	g, err := NewUniformGenerator(1000, 1000+buckets-1)
	if err != nil {
		t.Fatal(err)
	}
	r := NewRand(4)
	counts := make([]float64, buckets)
	for range statDraws {
		v := g.Next(r)
		if v < 1000 || v >= 1000+buckets {
			t.Fatalf("value %d out of range", v)
		}
		counts[v-1000]++
	}
	exp := float64(statDraws) / buckets
	chi2 := 0.0
	for _, c := range counts {
		chi2 += (c - exp) * (c - exp) / exp
	}
	// 99 degrees of freedom: mean 99, sd 14; 170 is p ~ 1e-6.
	if chi2 > 170 {
		t.Errorf("chi-square %.1f over 99 degrees of freedom", chi2)
	}
}

func TestHotspotFraction(t *testing.T) {
	g, err := NewHotspotGenerator(0, 9999, 0.2, 0.8)
	if err != nil {
		t.Fatal(err)
	}
	r := NewRand(5)
	hot := 0
	for range statDraws {
		v := g.Next(r)
		if v < 0 || v > 9999 {
			t.Fatalf("value %d out of range", v)
		}
		if v < 2000 {
			hot++
		}
	}
	within(t, "hot set", float64(hot)/statDraws, 0.8, statDraws)
	for _, bad := range [][2]float64{{-0.1, 0.5}, {0.5, 1.5}, {0, 0.5}} {
		if _, err := NewHotspotGenerator(0, 99, bad[0], bad[1]); err == nil {
			t.Errorf("NewHotspotGenerator(%v) accepted", bad)
		}
	}
}

func TestExponentialPercentile(t *testing.T) {
	const recordcount = 100_000
	rangeLen := recordcount * 0.8571428571
	g, err := NewExponentialGenerator(95, rangeLen)
	if err != nil {
		t.Fatal(err)
	}
	r := NewRand(6)
	below := 0
	for range statDraws {
		v := g.Next(r)
		if v < 0 {
			t.Fatalf("negative draw %d", v)
		}
		if float64(v) < rangeLen {
			below++
		}
	}
	within(t, "below recordcount*frac", float64(below)/statDraws, 0.95, statDraws)
}

func TestSkewedLatestFavoursLast(t *testing.T) {
	c := NewAcknowledgedCounter(1000)
	g, err := NewSkewedLatestGenerator(c)
	if err != nil {
		t.Fatal(err)
	}
	r := NewRand(7)
	atLast, near := 0, 0
	for range statDraws {
		v := g.Next(r)
		if v < 0 || v > 999 {
			t.Fatalf("value %d outside [0, last=999]", v)
		}
		if v == 999 {
			atLast++
		}
		if v >= 989 {
			near++
		}
	}
	within(t, "draws of last", float64(atLast)/statDraws, 1/zetaStatic(0, 999, ZipfianConstant, 0), statDraws)
	if float64(near)/statDraws < 0.35 {
		t.Errorf("only %.3f of draws within 10 of last", float64(near)/statDraws)
	}
	// After inserts the newest key becomes the most popular one.
	for v := c.Next(); v < 1100; v = c.Next() {
		c.Acknowledge(v)
		if v == 1099 {
			break
		}
	}
	if got := g.Next(NewRand(1)); got > 1099 {
		t.Fatalf("draw %d past last 1099", got)
	}
}

func TestSequentialExact(t *testing.T) {
	g, err := NewSequentialGenerator(5, 8)
	if err != nil {
		t.Fatal(err)
	}
	want := []int64{5, 6, 7, 8, 5, 6, 7, 8, 5}
	for i, w := range want {
		if got := g.Next(nil); got != w {
			t.Fatalf("draw %d = %d, want %d", i, got, w)
		}
	}
}

func TestCounter(t *testing.T) {
	g := NewCounterGenerator(10)
	if g.Last() != 9 {
		t.Fatalf("Last before first = %d", g.Last())
	}
	for i := int64(10); i < 15; i++ {
		if got := g.Next(nil); got != i {
			t.Fatalf("Next = %d, want %d", got, i)
		}
	}
	if g.Last() != 14 {
		t.Fatalf("Last = %d", g.Last())
	}
}

func TestDiscreteProportionsAndOrder(t *testing.T) {
	var g DiscreteGenerator[Op]
	g.Add(0.5, OpRead)
	g.Add(0.3, OpUpdate)
	g.Add(0.15, OpInsert)
	g.Add(0.05, OpScan)
	r := NewRand(8)
	counts := map[Op]int{}
	for range statDraws {
		counts[g.Next(r)]++
	}
	for op, p := range map[Op]float64{OpRead: 0.5, OpUpdate: 0.3, OpInsert: 0.15, OpScan: 0.05} {
		within(t, op.String(), float64(counts[op])/statDraws, p, statDraws)
	}
	// YCSB's order: v < 0.5 is the first value, so a fixed v maps to a
	// fixed value. With weights that do not sum to 1 they are normalised.
	var h DiscreteGenerator[string]
	h.Add(2, "a")
	h.Add(2, "b")
	if h.norm[0] != 0.5 || h.norm[1] != 0.5 {
		t.Fatalf("normalised weights %v", h.norm)
	}
}

func TestHistogramGenerator(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hist.txt")
	// Block size 10; buckets 0..3 with counts 0, 1, 1, 2.
	if err := os.WriteFile(path, []byte("BlockSize\t10\n0\t0\n1\t1\n2\t1\n3\t2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	g, err := LoadHistogramGenerator(path)
	if err != nil {
		t.Fatal(err)
	}
	r := NewRand(9)
	seen := map[int64]int{}
	for range 10000 {
		seen[g.Next(r)]++
	}
	for v := range seen {
		if v%10 != 0 || v < 10 || v > 40 {
			t.Errorf("value %d not a bucket boundary in [10, 40]", v)
		}
	}
	if _, err := LoadHistogramGenerator(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("missing file accepted")
	}
}

func TestRandRanges(t *testing.T) {
	r := NewRand(10)
	for range 100_000 {
		if d := r.NextDouble(); d < 0 || d >= 1 {
			t.Fatalf("NextDouble %v", d)
		}
		if n := r.NextIntn(7); n < 0 || n >= 7 {
			t.Fatalf("NextIntn %d", n)
		}
		if l := r.NextNonNegativeLong(); l < 0 {
			t.Fatalf("NextNonNegativeLong %d", l)
		}
	}
	a, b := NewRand(11), NewRand(11)
	for range 10 {
		if a.Uint64() != b.Uint64() {
			t.Fatal("same seed, different streams")
		}
	}
}
