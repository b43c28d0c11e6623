package growth

import (
	"math"
	"strconv"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func defaultDocs() DocumentConfig {
	return DocumentConfig{Seed: DefaultSeed, MatchesPerValue: DefaultMatchesPerValue, Number1: DefaultNumber1,
		PayloadSize: DefaultPayloadSize, DateStart: DefaultDateStart, DateStep: DefaultDateStep, DateJitter: DefaultDateJitter}
}

func newGen(t testing.TB, d DocumentConfig, target int64) *Generator {
	t.Helper()
	g, err := NewGenerator(d, target)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestDocumentShape: the default document is 1,024 bytes of BSON with the
// fields in order and the generator's values; a document depends on (seed,
// i) alone, not on what was made before.
func TestDocumentShape(t *testing.T) {
	g := newGen(t, defaultDocs(), 1_000_000)
	other := newGen(t, defaultDocs(), 1_000_000)
	var buf []byte
	for _, i := range []int64{0, 1, 999_999, 12345} {
		buf = g.AppendDocument(buf[:0], i)
		if len(buf) != 1024 || DocumentSize(DefaultPayloadSize) != 1024 {
			t.Fatalf("document %d is %d bytes, want 1024", i, len(buf))
		}
		raw := bson.Raw(buf)
		if err := raw.Validate(); err != nil {
			t.Fatalf("document %d: %v", i, err)
		}
		elems, _ := raw.Elements()
		var names []string
		for _, e := range elems {
			names = append(names, e.Key())
		}
		if want := []string{FieldID, FieldNumber, FieldNumber1, FieldDate, FieldPayload}; !equal(names, want) {
			t.Errorf("fields %v, want %v", names, want)
		}
		if raw.Lookup(FieldID).Int64() != i || raw.Lookup(FieldNumber).Int64() != g.Number(i) ||
			raw.Lookup(FieldNumber1).Int64() != g.Number1(i) || raw.Lookup(FieldDate).DateTime() != g.DateMillis(i) {
			t.Errorf("document %d: %s", i, raw)
		}
		p := raw.Lookup(FieldPayload).StringValue()
		for _, c := range []byte(p) {
			if c < ' ' || c > '~' {
				t.Fatalf("payload byte %q is not printable ASCII", c)
			}
		}
		// Made in another order by another generator: the same bytes.
		if got := other.AppendDocument(nil, i); string(got) != string(buf) {
			t.Errorf("document %d differs between generators", i)
		}
	}
	d := defaultDocs()
	d.Seed = 2
	if string(newGen(t, d, 1_000_000).AppendDocument(nil, 7)) == string(g.AppendDocument(nil, 7)) {
		t.Error("another seed makes the same document")
	}
	d = defaultDocs()
	d.PayloadSize = 0
	if doc := newGen(t, d, 10).AppendDocument(nil, 3); len(doc) != DocumentSize(0) || bson.Raw(doc).Validate() != nil {
		t.Errorf("a document without payload: %d bytes", len(doc))
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// chiSquare is Pearson's statistic of counts against a uniform
// expectation, and its degrees of freedom.
func chiSquare(counts []int64, total int64) (stat float64, dof int) {
	exp := float64(total) / float64(len(counts))
	for _, c := range counts {
		d := float64(c) - exp
		stat += d * d / exp
	}
	return stat, len(counts) - 1
}

// chiSquareOK reports whether stat is within 5 standard deviations of the
// chi-square distribution's mean (dof, variance 2·dof): a fixed seed makes
// the test deterministic; the bound only guards against a broken
// generator, whose statistic is off by orders of magnitude.
func chiSquareOK(stat float64, dof int) bool {
	return math.Abs(stat-float64(dof)) < 5*math.Sqrt(2*float64(dof))
}

// TestValuesAreUniformAndSelective: at the target, number takes N =
// target/matchesPerValue values uniformly (chi-square), so an equality
// matches matchesPerValue documents on average, distributed as a binomial
// (Poisson-like) count; number1 likewise; paired number1 is a permutation
// of number, independent number1 is independent of it.
func TestValuesAreUniformAndSelective(t *testing.T) {
	const target = 200_000
	for _, mode := range []string{Number1Paired, Number1Independent} {
		t.Run(mode, func(t *testing.T) {
			d := defaultDocs()
			d.Number1 = mode
			g := newGen(t, d, target)
			n := g.Values()
			if n != target/DefaultMatchesPerValue {
				t.Fatalf("N = %d, want %d", n, target/DefaultMatchesPerValue)
			}
			byNumber := make([]int64, n)
			byNumber1 := make([]int64, n)
			// Joint counts over a coarse 10×10 grid: independent number1
			// fills it uniformly.
			var joint [100]int64
			pairs := map[int64]int64{}
			for i := range int64(target) {
				v, w := g.Number(i), g.Number1(i)
				if v < 0 || v >= n || w < 0 || w >= n {
					t.Fatalf("record %d: values %d, %d outside [0, %d)", i, v, w, n)
				}
				byNumber[v]++
				byNumber1[w]++
				joint[v*10/n*10+w*10/n]++
				if mode == Number1Paired {
					if p, ok := pairs[v]; ok && p != w {
						t.Fatalf("number %d goes with number1 %d and %d", v, p, w)
					}
					pairs[v] = w
				}
			}
			for name, counts := range map[string][]int64{"number": byNumber, "number1": byNumber1} {
				stat, dof := chiSquare(counts, target)
				if !chiSquareOK(stat, dof) {
					t.Errorf("%s: chi-square %.0f with %d degrees of freedom: not uniform", name, stat, dof)
				}
				// Selectivity: the mean matches per value is exactly
				// target/N; its spread is the binomial's.
				var mean, sq float64
				for _, c := range counts {
					mean += float64(c)
					sq += float64(c) * float64(c)
				}
				mean /= float64(n)
				variance := sq/float64(n) - mean*mean
				if mean != DefaultMatchesPerValue || variance < 8 || variance > 12 {
					t.Errorf("%s: %.2f documents per value (variance %.2f), want 10 (about 10)", name, mean, variance)
				}
			}
			if mode == Number1Independent {
				stat, dof := chiSquare(joint[:], target)
				if !chiSquareOK(stat, dof) {
					t.Errorf("number and number1: joint chi-square %.0f with %d degrees of freedom: not independent", stat, dof)
				}
			} else {
				seen := map[int64]bool{}
				for v := range n {
					w := g.Pair(v)
					if seen[w] {
						t.Fatalf("Pair is not a permutation: %d twice", w)
					}
					seen[w] = true
				}
			}
		})
	}
}

// TestDatesIncreaseWithJitter: date i lies in [start + i·step, + jitter)
// and is uniform there; dates are not in insertion order locally, but are
// on the whole.
func TestDatesIncreaseWithJitter(t *testing.T) {
	d := defaultDocs()
	g := newGen(t, d, 100_000)
	start, step, jitter := d.DateStart.UnixMilli(), d.DateStep.Milliseconds(), d.DateJitter.Milliseconds()
	buckets := make([]int64, 10)
	inversions := 0
	for i := range int64(100_000) {
		off := g.DateMillis(i) - start - i*step
		if off < 0 || off >= jitter {
			t.Fatalf("record %d: jitter %d ms outside [0, %d)", i, off, jitter)
		}
		buckets[off*10/jitter]++
		if i > 0 && g.DateMillis(i) < g.DateMillis(i-1) {
			inversions++
		}
		if i >= 10 && g.DateMillis(i) <= g.DateMillis(i-10-1) {
			t.Fatalf("record %d is dated before record %d, more than the jitter apart", i, i-11)
		}
	}
	if stat, dof := chiSquare(buckets, 100_000); !chiSquareOK(stat, dof) {
		t.Errorf("jitter: chi-square %.0f with %d degrees of freedom", stat, dof)
	}
	if inversions == 0 {
		t.Error("dates strictly increase: no jitter")
	}
	d.DateJitter = 0
	if g := newGen(t, d, 10); g.DateMillis(3) != start+3*step {
		t.Errorf("without jitter, date 3 is %d", g.DateMillis(3))
	}
	if got := time.UnixMilli(newGen(t, defaultDocs(), 10).DateMillis(0)); got.Before(DefaultDateStart) || got.After(DefaultDateStart.Add(DefaultDateJitter)) {
		t.Errorf("date 0 is %v", got)
	}
}

// TestAppendDocumentDoesNotAllocate: making a document costs no
// allocation once the buffer has grown (BenchmarkAppendDocument measures
// its time).
func TestAppendDocumentDoesNotAllocate(t *testing.T) {
	g := newGen(t, defaultDocs(), 1_000_000)
	buf := g.AppendDocument(nil, 0)
	i := int64(0)
	if a := testing.AllocsPerRun(1000, func() {
		i++
		buf = g.AppendDocument(buf[:0], i)
	}); a != 0 {
		t.Errorf("%v allocations per document", a)
	}
}

// BenchmarkAppendDocument is the cost of making one document (1 KB by
// default, and a small one).
//
//	go test ./internal/growth -run '^$' -bench AppendDocument -benchmem
func BenchmarkAppendDocument(b *testing.B) {
	for _, size := range []int{DefaultPayloadSize, 16} {
		d := defaultDocs()
		d.PayloadSize = size
		g := newGen(b, d, 200_000_000)
		b.Run(byteSize(DocumentSize(size)), func(b *testing.B) {
			buf := g.AppendDocument(nil, 0)
			b.SetBytes(int64(len(buf)))
			b.ReportAllocs()
			i := int64(0)
			for b.Loop() {
				buf = g.AppendDocument(buf[:0], i)
				i++
			}
		})
	}
}

func byteSize(n int) string {
	return "doc=" + strconv.Itoa(n) + "B"
}
