package stats

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// ChangePoint is a point where a series' mean shifts: the values from
// Index on differ from those before it.
type ChangePoint struct {
	// Index of the first value after the change.
	Index int
	// Test compares the values before (back to the previous change point)
	// with those after (up to the next).
	Test TTest
	// Change is the relative change of the mean, after over before minus
	// one (−0.1: 10% lower).
	Change float64
}

// MinSegment is the fewest values on either side of a change point: a
// t-test of one value has no variance to compare.
const MinSegment = 3

// ChangePoints finds the points where the mean of xs shifts, by binary
// segmentation with Welch's t-test in the spirit of Apache Otava (formerly
// Hunter; Fleming et al., "Hunter: Using Change Point Detection to Hunt
// for Performance Regressions", ICPE 2023), which made MongoDB's
// E-divisive approach (Daly et al., ICPE 2020) deterministic and cheap:
//
//  1. In a segment, the candidate is the split whose two sides differ the
//     most (the largest |t| of Welch's test, each side at least
//     MinSegment values).
//  2. The candidate is kept when its p-value is below pValue; the two
//     sides are then searched the same way.
//  3. Every kept point is tested again between its neighbouring change
//     points, and dropped if no longer significant, until none changes:
//     a point found against a long, mixed segment must also stand against
//     its final neighbours.
//
// The search is deterministic (no permutation test) and O(n²) per level;
// it is meant for histories of tens to hundreds of runs. The split of
// step 1 maximises a statistic over many positions, so its p-value is
// optimistic; the gate never flags a regression from a change point
// alone — it only uses them to choose which history is comparable (see
// PredictionTest) — and callers that do (reports) should use a small
// pValue (Otava's default is 0.001).
func ChangePoints(xs []float64, pValue float64) []ChangePoint {
	var idx []int
	var split func(lo, hi int)
	split = func(lo, hi int) {
		best, bestT := -1, TTest{}
		for i := lo + MinSegment; i <= hi-MinSegment; i++ {
			t, err := Welch(xs[lo:i], xs[i:hi])
			if err != nil {
				continue
			}
			if best < 0 || math.Abs(t.T) > math.Abs(bestT.T) {
				best, bestT = i, t
			}
		}
		if best < 0 || !(bestT.P < pValue) {
			return
		}
		split(lo, best)
		idx = append(idx, best)
		split(best, hi)
	}
	split(0, len(xs))
	// Re-test each point between its final neighbours.
	for changed := true; changed; {
		changed = false
		for k := 0; k < len(idx); k++ {
			lo, hi := 0, len(xs)
			if k > 0 {
				lo = idx[k-1]
			}
			if k+1 < len(idx) {
				hi = idx[k+1]
			}
			t, err := Welch(xs[lo:idx[k]], xs[idx[k]:hi])
			if err != nil || !(t.P < pValue) {
				idx = append(idx[:k], idx[k+1:]...)
				changed = true
				break
			}
		}
	}
	out := make([]ChangePoint, len(idx))
	for k, i := range idx {
		lo, hi := 0, len(xs)
		if k > 0 {
			lo = idx[k-1]
		}
		if k+1 < len(idx) {
			hi = idx[k+1]
		}
		t, _ := Welch(xs[lo:i], xs[i:hi])
		out[k] = ChangePoint{Index: i, Test: t, Change: ChangePercent(Mean(xs[lo:i]), Mean(xs[i:hi])) / 100}
	}
	return out
}

// PredictionTest tests whether k new values (one run, or a run's
// repetitions) come from the distribution of the history: the
// prediction-interval t-test t = (x̄ − mean) / (s·√(1/k + 1/n)), with the
// history's mean, standard deviation s and n − 1 degrees of freedom; for
// k = 1 it is the exact test for a single new observation from a normal
// population. The spread comes from the history alone: it holds many runs
// of the same benchmark, whereas k repetitions give a poor estimate of
// their own (Welch's test with k = 3 has 2 degrees of freedom and little
// power). T is positive when the new values are larger.
func PredictionTest(history, current []float64) (TTest, error) {
	if len(history) < 2 || len(current) == 0 {
		return TTest{}, ErrTooFewValues
	}
	n, k := float64(len(history)), float64(len(current))
	m, s := Mean(history), StdDev(history)
	d := Mean(current) - m
	df := n - 1
	if s == 0 {
		if d == 0 {
			return TTest{T: 0, DF: df, P: 1}, nil
		}
		return TTest{T: math.Copysign(math.Inf(1), d), DF: df, P: 0}, nil
	}
	t := d / (s * math.Sqrt(1/k+1/n))
	p := 2 * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Survival(math.Abs(t))
	return TTest{T: t, DF: df, P: math.Min(p, 1)}, nil
}

// RegimePValue is the significance of the change points that delimit the
// comparable history (Otava's default p).
const RegimePValue = 0.001

// LastRegime is the part of a history after its last change point (found
// at pValue, of at least minChange relative size): the runs a new run is
// comparable with. A history that stepped up or down earlier (an accepted
// improvement, a known regression) is otherwise compared with a mix of
// two regimes, whose inflated spread hides real changes. The minimum size
// matters: in noise, the split that maximises t is often significant by
// chance (see ChangePoints), and a last "regime" cut there is biased away
// from the true mean, which makes the next run look different; steps of
// at least minChange (Otava's minimum magnitude) are rarely noise.
func LastRegime(history []float64, pValue, minChange float64) []float64 {
	return history[RegimeStart(ChangePoints(history, pValue), minChange):]
}

// RegimeStart is where LastRegime cuts a history whose change points are
// cps: the index of its last change point of at least minChange relative
// size, 0 when none is (the whole history is one regime).
func RegimeStart(cps []ChangePoint, minChange float64) int {
	for k := len(cps) - 1; k >= 0; k-- {
		if math.Abs(cps[k].Change) >= minChange {
			return cps[k].Index
		}
	}
	return 0
}
