package stats

import (
	"errors"
	"math"
	"testing"
)

// Reference values from SciPy 1.17.1: scipy.stats.ttest_ind(a, b,
// equal_var=False) → statistic, pvalue, df; and scipy.stats.t.sf.
func TestWelchMatchesSciPy(t *testing.T) {
	cases := []struct {
		name     string
		a, b     []float64
		t, df, p float64
	}{
		{
			// The worked example of Welch's test on Wikipedia (samples A1, A2).
			name: "textbook",
			a:    []float64{27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4},
			b:    []float64{27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4},
			t:    -2.455356398286006, df: 24.988529290231416, p: 0.021378001462866992,
		},
		{
			// A 10% throughput drop, unequal sizes and spreads: a tiny p-value
			// that 1-CDF would round away.
			name: "regression",
			a:    []float64{100.0, 101.2, 99.8, 100.5, 100.1, 99.6, 100.9, 100.3},
			b:    []float64{90.2, 89.9, 90.6, 90.1},
			t:    41.64832524785857, df: 9.781935483871024, p: 2.4324999979165784e-12,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Welch(c.a, c.b)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got.T-c.t) > 1e-9*math.Abs(c.t) || math.Abs(got.DF-c.df) > 1e-9*c.df {
				t.Errorf("t, df = %v, %v; want %v, %v", got.T, got.DF, c.t, c.df)
			}
			if math.Abs(got.P-c.p) > 1e-6*c.p {
				t.Errorf("p = %v, want %v", got.P, c.p)
			}
		})
	}
}

func TestWelchEdges(t *testing.T) {
	if _, err := Welch([]float64{1}, []float64{1, 2}); !errors.Is(err, ErrTooFewValues) {
		t.Errorf("one value: %v", err)
	}
	same, err := Welch([]float64{5, 5, 5}, []float64{5, 5})
	if err != nil || same.T != 0 || same.P != 1 {
		t.Errorf("constant equal samples: %+v %v", same, err)
	}
	apart, err := Welch([]float64{5, 5, 5}, []float64{4, 4})
	if err != nil || !math.IsInf(apart.T, 1) || apart.P != 0 {
		t.Errorf("constant different samples: %+v %v", apart, err)
	}
	// Swapping the samples flips t and keeps p.
	a, b := []float64{1, 2, 3, 4}, []float64{2, 4, 6, 8, 10}
	x, _ := Welch(a, b)
	y, _ := Welch(b, a)
	if x.T != -y.T || x.P != y.P || x.DF != y.DF {
		t.Errorf("not symmetric: %+v vs %+v", x, y)
	}
}
