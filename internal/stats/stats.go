package stats

import (
	"math"
	"slices"
	"sort"
)

// Median is the middle value of xs, or the mean of the two middle values
// when len(xs) is even; NaN for no values. xs is not modified.
func Median(xs []float64) float64 {
	return Quantile(xs, 0.5)
}

// Quantile is the q-quantile of xs by linear interpolation between closest
// ranks (R's and numpy's default, type 7): Quantile(xs, 0.5) is the median.
// NaN for no values or q outside [0, 1].
func Quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 || q < 0 || q > 1 || math.IsNaN(q) {
		return math.NaN()
	}
	s := sorted(xs)
	h := q * float64(len(s)-1)
	lo := math.Floor(h)
	i := int(lo)
	if i+1 >= len(s) {
		return s[len(s)-1]
	}
	return s[i] + (h-lo)*(s[i+1]-s[i])
}

// Min is the smallest value; NaN for no values.
func Min(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	// slices.Min propagates NaN and orders -0 below +0, as math.Min does.
	return slices.Min(xs)
}

// Max is the largest value; NaN for no values.
func Max(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	// slices.Max propagates NaN and orders -0 below +0, as math.Max does.
	return slices.Max(xs)
}

// Mean is the arithmetic mean; NaN for no values. It sums with Kahan
// compensation so long series of similar values stay exact enough to
// compare against an independent computation.
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	var sum, c float64
	for _, x := range xs {
		y := x - c
		t := sum + y
		c = (t - sum) - y
		sum = t
	}
	return sum / float64(len(xs))
}

// Variance is the unbiased sample variance (n-1 in the denominator); NaN
// for fewer than two values. It uses the two-pass algorithm: the mean
// first, then the squared deviations, which avoids the cancellation of the
// sum-of-squares formula on large, close values such as throughputs.
func Variance(xs []float64) float64 {
	if len(xs) < 2 {
		return math.NaN()
	}
	m := Mean(xs)
	var ss, comp float64
	for _, x := range xs {
		d := x - m
		ss += d * d
		comp += d
	}
	n := float64(len(xs))
	return (ss - comp*comp/n) / (n - 1)
}

// StdDev is the sample standard deviation; NaN for fewer than two values.
func StdDev(xs []float64) float64 {
	return math.Sqrt(Variance(xs))
}

// CoV is the coefficient of variation: sample standard deviation over the
// mean, as a fraction (0.02 = 2%). NaN for fewer than two values or a zero
// mean.
func CoV(xs []float64) float64 {
	m := Mean(xs)
	if m == 0 {
		return math.NaN()
	}
	return StdDev(xs) / math.Abs(m)
}

// ChangePercent is the relative change from base to x in percent:
// +10 means x is 10% above base. NaN when base is 0 or either is NaN.
func ChangePercent(base, x float64) float64 {
	if base == 0 || math.IsNaN(base) || math.IsNaN(x) {
		return math.NaN()
	}
	return (x - base) / math.Abs(base) * 100
}

func sorted(xs []float64) []float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s
}

// OpsPerSec is count / runtime rounded to hundredths, like a phase's
// throughput in status (0 for an empty runtime rather than Inf, which
// JSON cannot carry). Reports, the plugin and the manager's metrics give
// an operation's throughput this way, so they show the same number.
func OpsPerSec(count, runtimeMillis int64) float64 {
	if runtimeMillis <= 0 {
		return 0
	}
	return math.Round(float64(count)*1000/float64(runtimeMillis)*100) / 100
}
