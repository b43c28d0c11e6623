package compare

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

func TestAgainstReference(t *testing.T) {
	cases := []struct {
		name     string
		ref, cur []float64
		d        Direction
		max      float64
		want     Verdict
		change   float64
	}{
		{"throughput down 12%", []float64{1000, 990, 1010}, []float64{880}, HigherIsBetter, 10, Regressed, -12},
		{"throughput down 8%", []float64{1000}, []float64{920}, HigherIsBetter, 10, Unchanged, -8},
		{"throughput up 20%", []float64{1000}, []float64{1190, 1200, 1210}, HigherIsBetter, 10, Improved, 20},
		{"p99 up 15%", []float64{2000}, []float64{2300}, LowerIsBetter, 10, Regressed, 15},
		{"p99 down 15%", []float64{2000}, []float64{1700}, LowerIsBetter, 10, Improved, -15},
		{"exactly at the threshold", []float64{1000}, []float64{900}, HigherIsBetter, 10, Unchanged, -10},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := AgainstReference(c.ref, c.cur, c.d, c.max)
			if err != nil {
				t.Fatal(err)
			}
			if r.Verdict != c.want || r.ChangePercent-c.change > 1e-9 || c.change-r.ChangePercent > 1e-9 || r.PValue != nil {
				t.Errorf("%+v, want %s at %v%%", r, c.want, c.change)
			}
		})
	}
	if _, err := AgainstReference([]float64{0}, []float64{1}, HigherIsBetter, 5); err == nil {
		t.Error("a zero baseline was accepted")
	}
}

func noisy(rng *rand.Rand, n int, mean, cov float64) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = mean * (1 + cov*rng.NormFloat64())
	}
	return xs
}

func TestAgainstHistory(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	history := noisy(rng, 30, 1000, 0.02)
	o := HistoryOptions{MaxRegressionPercent: 10}

	r, err := AgainstHistory(history, []float64{870}, HigherIsBetter, o)
	if err != nil || r.Verdict != Regressed || r.PValue == nil || *r.PValue >= 0.001 || r.Basis != "30-run history" {
		t.Fatalf("a 13%% drop: %+v %v", r, err)
	}
	if s := Summary("S3 throughput", r); !strings.HasPrefix(s, "S3 throughput -1") || !strings.Contains(s, "vs 30-run history (p=") {
		t.Errorf("summary %q", s)
	}
	// Significant but smaller than the minimum magnitude (a quieter
	// history: CV 1%).
	quiet := noisy(rng, 30, 1000, 0.01)
	r, _ = AgainstHistory(quiet, []float64{955, 956, 957}, HigherIsBetter, o)
	if r.Verdict != Unchanged || *r.PValue >= 0.001 {
		t.Errorf("a significant 4%% drop: %+v (p=%v)", r, *r.PValue)
	}
	// Latency: up is worse.
	r, _ = AgainstHistory(history, []float64{1150}, LowerIsBetter, o)
	if r.Verdict != Regressed {
		t.Errorf("p99 up 15%%: %+v", r)
	}
	r, _ = AgainstHistory(history, []float64{1150}, HigherIsBetter, o)
	if r.Verdict != Improved {
		t.Errorf("throughput up 15%%: %+v", r)
	}
	r, _ = AgainstHistory(history, []float64{1005}, HigherIsBetter, o)
	if r.Verdict != Unchanged {
		t.Errorf("noise: %+v", r)
	}
}

// TestHistoryFallsBackToThresholds: with fewer runs than MinRuns, in the
// history or since its last change point, the threshold decides and the
// basis says why.
func TestHistoryFallsBackToThresholds(t *testing.T) {
	o := HistoryOptions{MaxRegressionPercent: 10, MinRuns: 5}
	r, err := AgainstHistory([]float64{1000, 1010, 990}, []float64{850}, HigherIsBetter, o)
	if err != nil || r.Verdict != Regressed || r.PValue != nil || r.Basis != "thresholds: history has 3 of 5 runs" {
		t.Errorf("%+v %v", r, err)
	}
	rng := rand.New(rand.NewPCG(4, 4))
	h := append(noisy(rng, 30, 1000, 0.01), noisy(rng, 3, 1300, 0.01)...)
	r, _ = AgainstHistory(h, []float64{1290}, HigherIsBetter, o)
	if r.Basis != "thresholds: 3 runs since the history's last change point, fewer than 5" || r.Verdict != Unchanged {
		t.Errorf("after a recent step: %+v", r)
	}
	if _, err := AgainstHistory(nil, []float64{1}, HigherIsBetter, o); err == nil {
		t.Error("an empty history was accepted")
	}
}

func TestAcknowledge(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	reg := Result{Verdict: Regressed, ChangePercent: -12}
	acks := []Acknowledgement{
		{Metric: "S2/READ/p99", Reason: "expired", Until: now.Add(-time.Hour)},
		{Metric: "S3/throughput", Reason: "known: new allocator, JIRA-1", Until: now.Add(time.Hour)},
		{Metric: "S4/throughput", Reason: "forever"},
	}
	if r, a := Acknowledge(reg, "S3/throughput", acks, now); r.Verdict != Acknowledged || a.Reason != "known: new allocator, JIRA-1" {
		t.Errorf("%+v %+v", r, a)
	}
	if r, _ := Acknowledge(reg, "S4/throughput", acks, now); r.Verdict != Acknowledged {
		t.Errorf("no expiry: %+v", r)
	}
	if r, a := Acknowledge(reg, "S2/READ/p99", acks, now); r.Verdict != Regressed || a != nil {
		t.Errorf("expired: %+v", r)
	}
	if r, _ := Acknowledge(Result{Verdict: Improved}, "S3/throughput", acks, now); r.Verdict != Improved {
		t.Errorf("an improvement was acknowledged: %+v", r)
	}
}
