package ycsb

import (
	"fmt"
	"strings"
	"testing"
)

// PhaseOperations must plan what the loaders do: the sum over loader.count
// loaders of each one's OperationCount, whatever the counts and however
// they divide.
func TestPhaseOperations(t *testing.T) {
	cases := []struct {
		name      string
		kv        []string
		load, run int64
	}{
		{"one loader", []string{"recordcount=1000", "operationcount=5000"}, 1000, 5000},
		{"one loader, insertcount", []string{"recordcount=1000", "insertstart=100", "insertcount=600", "operationcount=5000"}, 600, 5000},
		{"one loader, unlimited", []string{"recordcount=0", "operationcount=0"}, 0, 0},
		{"three loaders, uneven", []string{"recordcount=1000", "operationcount=1001", "loader.count=3"}, 1000, 1001},
		{"three loaders, insertstart", []string{"recordcount=1000", "insertstart=250", "operationcount=10", "loader.count=3"}, 750, 10},
		{"three loaders, time only", []string{"recordcount=900", "loader.count=3"}, 900, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, ph := range []struct {
				phase Phase
				want  int64
			}{{PhaseLoad, c.load}, {PhaseRun, c.run}} {
				got, err := PhaseOperations(props(c.kv...), ph.phase)
				if err != nil {
					t.Fatalf("%v: %v", ph.phase, err)
				}
				if got != ph.want {
					t.Errorf("%v: PhaseOperations = %d, want %d", ph.phase, got, ph.want)
				}
				if sum := loadersOperations(t, c.kv, ph.phase); got != sum {
					t.Errorf("%v: PhaseOperations = %d, but the loaders' OperationCount add up to %d", ph.phase, got, sum)
				}
			}
		})
	}
}

// loadersOperations adds up OperationCount of every loader's workload.
func loadersOperations(t *testing.T, kv []string, phase Phase) int64 {
	t.Helper()
	n, err := props(kv...).Int("loader.count", 1)
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	for i := range n {
		w, err := NewWorkload(props(append(kv, fmt.Sprintf("loader.index=%d", i))...))
		if err != nil {
			t.Fatalf("loader %d: %v", i, err)
		}
		sum += w.OperationCount(phase)
	}
	return sum
}

func TestPhaseOperationsErrors(t *testing.T) {
	cases := []struct {
		kv   []string
		want string
	}{
		{[]string{"operationcount=many"}, `operationcount: "many" is not an integer`},
		{[]string{"insertcount=x"}, `insertcount: "x" is not an integer`},
		{[]string{"recordcount=-1"}, "recordcount: -1 must not be negative"},
		{[]string{"recordcount=10", "insertstart=5", "insertcount=6"}, "exceed recordcount 10"},
		{[]string{"operationcount=2", "loader.count=3"}, "operationcount 2 is smaller than loader.count 3"},
		{[]string{"loader.count=0"}, "loader.index 0 / loader.count 0"},
	}
	for _, c := range cases {
		_, err := PhaseOperations(props(c.kv...), PhaseRun)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one containing %q", c.kv, err, c.want)
		}
	}
}

// A loader reports a bad insertcount too (it used to load nothing).
func TestNewWorkloadInsertCountNotANumber(t *testing.T) {
	_, err := NewWorkload(props("recordcount=10", "insertcount=x"))
	if err == nil || !strings.Contains(err.Error(), `insertcount: "x" is not an integer`) {
		t.Fatalf("error %v, want insertcount's", err)
	}
}
