package ycsb

import "fmt"

// DiscreteGenerator picks one of a few values with fixed weights (YCSB's
// DiscreteGenerator; the operation chooser). Values are tried in the order
// they were added, which matters for reproducing YCSB's draws: CoreWorkload
// adds READ, UPDATE, INSERT, SCAN, READMODIFYWRITE, each only if its
// proportion is positive.
type DiscreteGenerator[T any] struct {
	values  []T
	weights []float64
	norm    []float64 // weight/sum, computed once (YCSB recomputes per call)
}

// Add appends a value with its weight; weights need not sum to 1.
func (g *DiscreteGenerator[T]) Add(weight float64, v T) {
	g.values = append(g.values, v)
	g.weights = append(g.weights, weight)
	sum := 0.0
	for _, w := range g.weights {
		sum += w
	}
	g.norm = g.norm[:0]
	for _, w := range g.weights {
		g.norm = append(g.norm, w/sum)
	}
}

// Len returns the number of values.
func (g *DiscreteGenerator[T]) Len() int { return len(g.values) }

// Next draws a value: v = nextDouble(); the first value with v < w/sum wins,
// else v -= w/sum. YCSB throws if rounding leaves v past the last weight; we
// return the last value. It panics if no value was added.
func (g *DiscreteGenerator[T]) Next(r *Rand) T {
	if len(g.values) == 0 {
		panic(fmt.Sprintf("ycsb: DiscreteGenerator[%T] has no values", *new(T)))
	}
	v := r.NextDouble()
	for i, p := range g.norm {
		if v < p {
			return g.values[i]
		}
		v -= p
	}
	return g.values[len(g.values)-1]
}
