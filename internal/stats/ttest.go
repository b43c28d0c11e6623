package stats

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// TTest is the outcome of a two-sample t-test.
type TTest struct {
	// T is the t statistic: positive when the first sample's mean is the
	// larger.
	T float64
	// DF are the degrees of freedom (Welch–Satterthwaite: not a whole
	// number in general).
	DF float64
	// P is the two-sided p-value: the probability, were both samples
	// drawn from populations with the same mean, of a |t| at least this
	// large.
	P float64
}

// ErrTooFewValues: a t-test needs at least two values in each sample.
var ErrTooFewValues = errors.New("a t-test needs at least two values in each sample")

// Welch is Welch's unequal-variances t-test of a against b (B. L. Welch,
// "The generalization of 'Student's' problem when several different
// population variances are involved", Biometrika 34, 1947): the test of
// regression detectors such as Apache Otava (formerly Hunter), which
// compares the window before a candidate change point with the window
// after it. Unlike Student's test it does not assume both samples share a
// variance, which benchmark results before and after a change rarely do.
// The p-value comes from the Student t distribution of gonum.
//
// Two samples without any variance have an infinite t and p = 0 when
// their means differ, and t = 0, p = 1 when they are equal.
func Welch(a, b []float64) (TTest, error) {
	if len(a) < 2 || len(b) < 2 {
		return TTest{}, ErrTooFewValues
	}
	na, nb := float64(len(a)), float64(len(b))
	ma, mb := Mean(a), Mean(b)
	va, vb := Variance(a)/na, Variance(b)/nb
	se2 := va + vb
	if se2 == 0 {
		if ma == mb {
			return TTest{T: 0, DF: na + nb - 2, P: 1}, nil
		}
		return TTest{T: math.Copysign(math.Inf(1), ma-mb), DF: na + nb - 2, P: 0}, nil
	}
	t := (ma - mb) / math.Sqrt(se2)
	df := se2 * se2 / (va*va/(na-1) + vb*vb/(nb-1))
	dist := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}
	// Survival function of |t|, doubled: computed from the upper tail
	// directly so tiny p-values keep their digits (1 - CDF would round to 0).
	p := 2 * dist.Survival(math.Abs(t))
	return TTest{T: t, DF: df, P: math.Min(p, 1)}, nil
}
