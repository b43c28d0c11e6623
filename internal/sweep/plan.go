package sweep

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// RunName is the name of the run of a cell and repetition (from 1):
// <sweep>-<cell>-r<repetition>. Sweep names of at most 32 characters keep
// it within a run's 40.
func RunName(sweep string, cell, repetition int) string {
	return sweep + "-" + strconv.Itoa(cell) + "-r" + strconv.Itoa(repetition)
}

// ParseRunName returns the cell and repetition of a run name of the sweep.
func ParseRunName(sweep, name string) (cell, repetition int, ok bool) {
	rest, found := strings.CutPrefix(name, sweep+"-")
	if !found {
		return 0, 0, false
	}
	c, r, found := strings.Cut(rest, "-r")
	if !found {
		return 0, 0, false
	}
	var err1, err2 error
	cell, err1 = strconv.Atoi(c)
	repetition, err2 = strconv.Atoi(r)
	if err1 != nil || err2 != nil || cell < 0 || repetition < 1 || strconv.Itoa(cell) != c || strconv.Itoa(repetition) != r {
		return 0, 0, false
	}
	return cell, repetition, true
}

// Planned is one child run of the plan.
type Planned struct {
	Name       string
	Cell       int
	Repetition int
}

// Plan is the order the child runs are created in. Sequential goes cell by
// cell, a cell's repetitions one after another. Shuffled is a permutation
// of every cell × repetition drawn from seed (PCG and Fisher-Yates of
// math/rand/v2), so slow drift of the cluster (a warming disk, a noisy
// neighbour arriving) spreads over the cells instead of biasing the last
// ones. The controller stores the plan in status.order once, so a later
// Go version's shuffle can never change a running sweep's order.
func Plan(sweep string, cells, repetitions int, order benchv1.SweepOrder, seed int64) []Planned {
	plan := make([]Planned, 0, cells*repetitions)
	for c := 0; c < cells; c++ {
		for r := 1; r <= repetitions; r++ {
			plan = append(plan, Planned{Name: RunName(sweep, c, r), Cell: c, Repetition: r})
		}
	}
	if order == benchv1.SweepShuffled {
		rng := rand.New(rand.NewPCG(uint64(seed), uint64(seed)^0x9e3779b97f4a7c15))
		rng.Shuffle(len(plan), func(i, j int) { plan[i], plan[j] = plan[j], plan[i] })
	}
	return plan
}

// PlanFromOrder rebuilds the plan from the names stored in status.order,
// checking that they are exactly the sweep's runs.
func PlanFromOrder(sweep string, cells, repetitions int, names []string) ([]Planned, error) {
	if len(names) != cells*repetitions {
		return nil, fmt.Errorf("status.order lists %d runs, the sweep has %d", len(names), cells*repetitions)
	}
	seen := map[string]bool{}
	plan := make([]Planned, 0, len(names))
	for _, n := range names {
		c, r, ok := ParseRunName(sweep, n)
		if !ok || c >= cells || r > repetitions || seen[n] {
			return nil, fmt.Errorf("status.order holds %q, which is not one of the sweep's runs", n)
		}
		seen[n] = true
		plan = append(plan, Planned{Name: n, Cell: c, Repetition: r})
	}
	return plan, nil
}

// Labels of a cell's run (api/v1alpha1/labels.go).
func Labels(sweep string, c *Cell, repetition int) map[string]string {
	l := map[string]string{
		benchv1.LabelName:       benchv1.AppName,
		benchv1.LabelManagedBy:  benchv1.ManagedBy,
		benchv1.LabelSweep:      sweep,
		benchv1.LabelCell:       strconv.Itoa(c.Index),
		benchv1.LabelRepetition: strconv.Itoa(repetition),
	}
	for _, v := range c.Values {
		l[benchv1.LabelAxisPrefix+v.Axis] = v.Value
	}
	return l
}
