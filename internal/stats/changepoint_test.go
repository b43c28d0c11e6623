package stats

import (
	"math/rand/v2"
	"testing"
)

// noise is n values of mean 1000 and coefficient of variation cov, from a
// seeded generator.
func noise(rng *rand.Rand, n int, cov float64) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = 1000 * (1 + cov*rng.NormFloat64())
	}
	return xs
}

// TestChangePointFindsAStep: a 10% step at noise CV 2% in 50 points is
// found at its index (or one off, where the noise makes a neighbour fit as
// well) in every one of 200 seeded series.
func TestChangePointFindsAStep(t *testing.T) {
	exact, extra := 0, 0
	for seed := uint64(1); seed <= 200; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		xs := noise(rng, 50, 0.02)
		for i := 30; i < 50; i++ {
			xs[i] *= 0.9
		}
		cps := ChangePoints(xs, 0.001)
		var step *ChangePoint
		for i := range cps {
			if d := cps[i].Index - 30; d >= -1 && d <= 1 {
				step = &cps[i]
			}
		}
		if step == nil {
			t.Fatalf("seed %d: change points %+v, none at 30", seed, cps)
		}
		if step.Index == 30 {
			exact++
		}
		extra += len(cps) - 1
		if step.Test.T < 0 || step.Test.P >= 1e-6 {
			t.Errorf("seed %d: %+v: the values before are larger, p tiny", seed, step.Test)
		}
	}
	t.Logf("the step was found exactly at index 30 in %d of 200 series (else one off); %d other change points in all", exact, extra)
	if exact < 190 {
		t.Errorf("found exactly at 30 in only %d of 200 series", exact)
	}
	if extra > 20 {
		t.Errorf("%d change points besides the step", extra)
	}
}

// TestTwoStepsAndARegime: two steps are both found, and the last regime is
// what follows the second.
func TestTwoStepsAndARegime(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	xs := noise(rng, 60, 0.02)
	for i := 20; i < 60; i++ {
		xs[i] *= 1.15
	}
	for i := 40; i < 60; i++ {
		xs[i] *= 0.85
	}
	cps := ChangePoints(xs, 0.001)
	if len(cps) != 2 || cps[0].Index < 19 || cps[0].Index > 21 || cps[1].Index < 39 || cps[1].Index > 41 {
		t.Fatalf("change points %+v, want 20 and 40", cps)
	}
	if got := LastRegime(xs, 0.001, 0.05); len(got) != 60-cps[1].Index || got[0] != xs[cps[1].Index] {
		t.Errorf("last regime has %d values", len(got))
	}
}

// TestGateFalsePositiveRate measures how often pure noise is flagged by
// the gate's test: the last point against the last regime (change points
// at RegimePValue of at least 5%, the default minimum magnitude) of the 49
// before it. On 500 series × 50 points at
// p = 0.001 a calibrated test flags 0.5 series on average, so the rate is
// checked on 20,000 series too, and at p = 0.05 on 4,000, to show the
// test is calibrated rather than blind.
func TestGateFalsePositiveRate(t *testing.T) {
	rate := func(series int, p float64, seed uint64) (int, float64) {
		rng := rand.New(rand.NewPCG(seed, seed))
		flagged := 0
		for s := 0; s < series; s++ {
			xs := noise(rng, 50, 0.02)
			res, err := PredictionTest(LastRegime(xs[:49], RegimePValue, 0.05), xs[49:])
			if err != nil {
				t.Fatal(err)
			}
			if res.P < p {
				flagged++
			}
		}
		return flagged, float64(flagged) / float64(series)
	}
	n500, r500 := rate(500, 0.001, 11)
	_, r20k := rate(20000, 0.001, 13)
	_, r05 := rate(4000, 0.05, 12)
	t.Logf("false-positive rate at p=0.001: %.4f (%d of 500 series × 50 points), %.5f of 20,000 series; at p=0.05: %.4f of 4,000", r500, n500, r20k, r05)
	// Poisson(0.5): 4 or more flagged has probability 0.0018.
	if n500 > 3 {
		t.Errorf("%d of 500 noise series flagged at p=0.001", n500)
	}
	// Binomial bounds, three standard deviations.
	if r20k > 0.001+3*0.000224 {
		t.Errorf("false-positive rate %.5f above the nominal 0.001", r20k)
	}
	if r05 > 0.05+3*0.0034 || r05 < 0.05-3*0.0034 {
		t.Errorf("false-positive rate %.4f at p=0.05: the test is not calibrated", r05)
	}
}

// TestChangePointsInNoise states how often the change-point pass alone
// finds a step in pure noise (it maximises over every split, so more often
// than p: it only chooses the comparable history, it never flags).
func TestChangePointsInNoise(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	found := 0
	for s := 0; s < 500; s++ {
		if len(ChangePoints(noise(rng, 50, 0.02), 0.001)) > 0 {
			found++
		}
	}
	t.Logf("change points found in %d of 500 pure-noise series at p=0.001", found)
	if found > 50 {
		t.Errorf("change points in %d of 500 noise series", found)
	}
}

// Reference values from SciPy 1.17.1: the prediction-interval test of one
// new value, t = (x − mean)/(s·sqrt(1 + 1/n)), p = 2·t.sf(|t|, n − 1).
func TestPredictionTest(t *testing.T) {
	history := []float64{100, 102, 98, 101, 99, 100.5, 99.5}
	got, err := PredictionTest(history, []float64{94})
	if err != nil {
		t.Fatal(err)
	}
	const wantT, wantP = -4.242640687119285, 0.0054239503413087455
	if d := got.T - wantT; d > 1e-12 || d < -1e-12 || got.DF != 6 {
		t.Errorf("t = %v df = %v, want %v, 6", got.T, got.DF, wantT)
	}
	if d := got.P - wantP; d > 1e-12 || d < -1e-12 {
		t.Errorf("p = %v, want %v", got.P, wantP)
	}
	// Two new values: their mean against the history's spread,
	// (94.5 − 100)/(s·sqrt(1/2 + 1/7)), SciPy: 2·t.sf(|t|, 6).
	two, _ := PredictionTest(history, []float64{94, 95})
	if d := two.T - -5.185449728701349; d > 1e-12 || d < -1e-12 {
		t.Errorf("two values: t = %v", two.T)
	}
	if _, err := PredictionTest([]float64{1}, []float64{2}); err == nil {
		t.Error("one value of history was accepted")
	}
}

// TestGateDetectsARegressionAfterAnAcceptedStep: a history that improved
// by 15% at run 20 compares a new run with the runs since. A new run 10%
// below that level (5 noise standard deviations at CV 2%, less its own
// noise) is flagged at p = 0.001 in most series, and a run with 3
// repetitions in nearly all; a run at the level is flagged in none. The
// whole, mixed history would miss every drop.
func TestGateDetectsARegressionAfterAnAcceptedStep(t *testing.T) {
	const series = 200
	single, repeated, missedWhole := 0, 0, 0
	for seed := uint64(1); seed <= series; seed++ {
		rng := rand.New(rand.NewPCG(seed, 99))
		xs := noise(rng, 53, 0.02)
		for i := 20; i < 53; i++ {
			xs[i] *= 1.15
		}
		history, same := xs[:49], xs[49:50]
		drop := []float64{xs[50] * 0.9, xs[51] * 0.9, xs[52] * 0.9}
		regime := LastRegime(history, RegimePValue, 0.05)
		if len(regime) < 28 || len(regime) > 30 {
			t.Fatalf("seed %d: the last regime has %d runs, want the 29 since the step", seed, len(regime))
		}
		if r, _ := PredictionTest(regime, drop[:1]); r.P < 0.001 && r.T < 0 {
			single++
		}
		if r, _ := PredictionTest(regime, drop); r.P < 0.001 && r.T < 0 {
			repeated++
		}
		if r, _ := PredictionTest(regime, same); r.P < 0.001 {
			t.Errorf("seed %d: a run at the level was flagged: %+v", seed, r)
		}
		if r, _ := PredictionTest(history, drop[:1]); !(r.P < 0.001) {
			missedWhole++
		}
	}
	t.Logf("a 10%% drop after a +15%% step, p=0.001: flagged in %d of %d series with one run, %d with 3 repetitions; "+
		"against the whole history missed in %d", single, series, repeated, missedWhole)
	if single < series*85/100 || repeated < series*99/100 || missedWhole < series*95/100 {
		t.Errorf("power: %d single, %d repeated of %d; the mixed history missed %d", single, repeated, series, missedWhole)
	}
}
