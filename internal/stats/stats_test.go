package stats

import (
	"math"
	"testing"
)

func near(a, b, tol float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) <= tol
}

// Reference values computed with Python 3's statistics module (median,
// quantiles(method="inclusive"), mean, variance, stdev/mean), written down here.
func TestDescriptive(t *testing.T) {
	cases := []struct {
		name                             string
		xs                               []float64
		median, q90, mean, variance, cov float64
	}{
		{"odd", []float64{3, 1, 2}, 2, 2.8, 2, 1, 0.5},
		{"even", []float64{4, 1, 3, 2}, 2.5, 3.7, 2.5, 1.6666666666666667, 0.5163977794943222},
		{"one", []float64{7}, 7, 7, 7, math.NaN(), math.NaN()},
		{"none", nil, math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN()},
		// Large close values: the sum-of-squares formula loses every digit here.
		{"throughputs", []float64{1e9 + 4, 1e9 + 7, 1e9 + 13, 1e9 + 16}, 1e9 + 10, 1e9 + 15.1, 1e9 + 10, 30, 5.477225520279406e-09},
		{"study", []float64{41230.5, 40012.25, 42877.75}, 41230.5, 42548.3, 41373.5, 2068109.3125, 0.034758776694326594},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Median(c.xs); !near(got, c.median, 1e-9) {
				t.Errorf("Median = %v, want %v", got, c.median)
			}
			if got := Quantile(c.xs, 0.9); !near(got, c.q90, 1e-6) {
				t.Errorf("Quantile(0.9) = %v, want %v", got, c.q90)
			}
			if got := Mean(c.xs); !near(got, c.mean, 1e-9) {
				t.Errorf("Mean = %v, want %v", got, c.mean)
			}
			if got := Variance(c.xs); !near(got, c.variance, 1e-6) {
				t.Errorf("Variance = %v, want %v", got, c.variance)
			}
			if got := CoV(c.xs); !near(got, c.cov, 1e-12) {
				t.Errorf("CoV = %v, want %v", got, c.cov)
			}
		})
	}
}

func TestMinMaxAndChange(t *testing.T) {
	xs := []float64{5, -2, 9, 0}
	if Min(xs) != -2 || Max(xs) != 9 {
		t.Errorf("Min/Max = %v/%v", Min(xs), Max(xs))
	}
	if !math.IsNaN(Min(nil)) || !math.IsNaN(Max(nil)) {
		t.Error("Min/Max of nothing should be NaN")
	}
	if got := ChangePercent(100, 375); got != 275 {
		t.Errorf("ChangePercent(100, 375) = %v, want 275", got)
	}
	if got := ChangePercent(200, 150); got != -25 {
		t.Errorf("ChangePercent(200, 150) = %v, want -25", got)
	}
	if !math.IsNaN(ChangePercent(0, 1)) {
		t.Error("change against 0 should be NaN")
	}
}

func TestMedianDoesNotReorderItsInput(t *testing.T) {
	xs := []float64{3, 1, 2}
	Median(xs)
	if xs[0] != 3 || xs[1] != 1 || xs[2] != 2 {
		t.Errorf("input reordered: %v", xs)
	}
}

func TestOpsPerSec(t *testing.T) {
	cases := []struct {
		name          string
		count, millis int64
		want          float64
	}{
		{"whole", 3000, 1500, 2000},
		{"hundredths", 1000, 3000, 333.33},
		{"rounded up", 2000, 3000, 666.67},
		{"no runtime", 5, 0, 0},
		{"negative runtime", 5, -1, 0},
	}
	for _, c := range cases {
		if got := OpsPerSec(c.count, c.millis); got != c.want {
			t.Errorf("%s: OpsPerSec(%d, %d) = %v, want %v", c.name, c.count, c.millis, got, c.want)
		}
	}
}
