package sweep

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"k8s.io/utils/ptr"
	kjson "sigs.k8s.io/json"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/topology"
)

// Value is one resolved value of an axis: its name, its position on a
// numeric axis, and what it does to a cell's spec.
type Value struct {
	Name string
	// Number places the value on a numeric axis; nil for categorical values.
	Number *float64
	// patch is an RFC 7386 merge patch onto the spec (generic values and
	// topologies).
	patch []byte
	// set changes the decoded spec (the shorthands threads, maxPoolSize,
	// writeConcern and loaders); applied after every patch.
	set func(*benchv1.BenchmarkRunSpec)
}

// Axis is one resolved axis.
type Axis struct {
	Name   string
	Values []Value
}

// Numeric reports whether every value has a number and no two share one:
// only then can the axis be plotted and have a knee.
func (a *Axis) Numeric() bool {
	seen := map[float64]bool{}
	for _, v := range a.Values {
		if v.Number == nil || seen[*v.Number] {
			return false
		}
		seen[*v.Number] = true
	}
	return len(a.Values) > 0
}

// Cell is one point of the study.
type Cell struct {
	// Index in the cartesian product, last axis fastest.
	Index int
	// Values are the cell's value of each axis, in axis order.
	Values []benchv1.SweepCellValue
	// Spec is the child runs' spec.
	Spec benchv1.BenchmarkRunSpec
}

// Name is the cell's value names joined by "/".
func (c *Cell) Name() string {
	names := make([]string, len(c.Values))
	for i, v := range c.Values {
		names[i] = v.Value
	}
	return strings.Join(names, "/")
}

// Describe names the cell by axis and value ("topologies=2-shards,
// threads=32"), for messages.
func (c *Cell) Describe() string {
	parts := make([]string, len(c.Values))
	for i, v := range c.Values {
		parts[i] = v.Axis + "=" + v.Value
	}
	return strings.Join(parts, ", ")
}

// ResolveAxes turns the spec's axes, shorthands included, into values with
// names, numbers and effects, and checks what CEL cannot: derived value
// names are unique, and the baseline names a value of each of its axes.
func ResolveAxes(spec *benchv1.BenchmarkSweepSpec) ([]Axis, error) {
	axes := make([]Axis, 0, len(spec.Axes))
	for i := range spec.Axes {
		a, err := resolveAxis(&spec.Axes[i])
		if err != nil {
			return nil, fmt.Errorf("axis %q: %w", spec.Axes[i].Name, err)
		}
		seen := map[string]bool{}
		for _, v := range a.Values {
			if seen[v.Name] {
				return nil, fmt.Errorf("axis %q: two values are called %q", a.Name, v.Name)
			}
			seen[v.Name] = true
		}
		axes = append(axes, a)
	}
	for axis, value := range spec.Baseline {
		a := findAxis(axes, axis)
		if a == nil {
			return nil, fmt.Errorf("baseline names axis %q, which the sweep does not have", axis)
		}
		if valueIndex(a, string(value)) < 0 {
			return nil, fmt.Errorf("baseline names %s=%s, but axis %q has no value %q (it has %s)",
				axis, value, axis, value, strings.Join(valueNames(a), ", "))
		}
	}
	return axes, nil
}

func resolveAxis(a *benchv1.SweepAxis) (Axis, error) {
	out := Axis{Name: a.Name}
	add := func(v Value) { out.Values = append(out.Values, v) }
	switch {
	case len(a.Values) > 0:
		for _, v := range a.Values {
			val := Value{Name: v.Name, Number: v.Number}
			if v.Patch != nil && len(v.Patch.Raw) > 0 {
				if !json.Valid(v.Patch.Raw) || !bytes.HasPrefix(bytes.TrimSpace(v.Patch.Raw), []byte("{")) {
					return out, fmt.Errorf("value %q: patch must be a JSON object", v.Name)
				}
				val.patch = v.Patch.Raw
			}
			add(val)
		}
	case len(a.Topologies) > 0:
		for _, t := range a.Topologies {
			v, err := topologyValue(t)
			if err != nil {
				return out, err
			}
			add(v)
		}
	case len(a.Threads) > 0:
		for _, n := range a.Threads {
			add(Value{Name: strconv.Itoa(int(n)), Number: ptr.To(float64(n)), set: func(s *benchv1.BenchmarkRunSpec) {
				for i := range s.Phases {
					s.Phases[i].Threads = n
				}
			}})
		}
	case len(a.MaxPoolSize) > 0:
		for _, n := range a.MaxPoolSize {
			v := Value{Name: strconv.Itoa(int(n)), Number: ptr.To(float64(n)), set: func(s *benchv1.BenchmarkRunSpec) {
				s.Driver.MaxPoolSize = ptr.To(n)
			}}
			if n == 0 {
				v.Name, v.Number = "unbounded", nil
			}
			add(v)
		}
	case len(a.WriteConcern) > 0:
		for _, w := range a.WriteConcern {
			add(Value{Name: w, set: func(s *benchv1.BenchmarkRunSpec) {
				s.Driver.WriteConcern = w
				if w == "0" {
					// j: true needs acknowledged writes.
					s.Driver.Journal = nil
				}
			}})
		}
	case len(a.Loaders) > 0:
		for _, n := range a.Loaders {
			add(Value{Name: strconv.Itoa(int(n)), Number: ptr.To(float64(n)), set: func(s *benchv1.BenchmarkRunSpec) {
				s.Loaders = n
			}})
		}
	default:
		return out, fmt.Errorf("no values")
	}
	return out, nil
}

// topologyValue is a topologies item as a merge patch of spec.topology:
// mode, shards, shard key and members change; image, resources and
// storage stay the template's. A standalone and a replica set drop every
// sharded-only field (shardMembers, configServerMembers too), and every
// mode the members of a template's ReplicaSet.
func topologyValue(t benchv1.SweepTopology) (Value, error) {
	patch := map[string]any{"mode": t.Mode}
	v := Value{Name: t.Name}
	switch t.Mode {
	case benchv1.TopologyStandalone:
		patch["shards"], patch["shardKey"], patch["mongosResources"], patch["configServerResources"] = nil, nil, nil, nil
		patch["members"], patch["shardMembers"], patch["configServerMembers"] = nil, nil, nil
		v.Number = ptr.To(1.0)
		if v.Name == "" {
			v.Name = "standalone"
		}
	case benchv1.TopologySharded:
		if t.Shards == nil {
			return v, fmt.Errorf("a Sharded topology needs shards")
		}
		patch["shards"], patch["members"] = *t.Shards, nil
		if t.ShardKey != "" {
			patch["shardKey"] = t.ShardKey
		}
		v.Number = ptr.To(float64(*t.Shards))
		if v.Name == "" {
			v.Name = strconv.Itoa(int(*t.Shards)) + "-shards"
			if *t.Shards == 1 {
				v.Name = "1-shard"
			}
		}
	case benchv1.TopologyReplicaSet:
		// A replica set is not sharded: like a standalone, it drops the
		// sharded-only fields. Unset members is the API's default (3).
		patch["shards"], patch["shardKey"], patch["mongosResources"], patch["configServerResources"] = nil, nil, nil, nil
		patch["shardMembers"], patch["configServerMembers"] = nil, nil
		members := topology.DefaultMembers
		patch["members"] = nil
		if t.Members != nil {
			members = *t.Members
			patch["members"] = members
		}
		v.Number = ptr.To(float64(members))
		if v.Name == "" {
			v.Name = "rs-" + strconv.Itoa(int(members))
		}
	default:
		return v, fmt.Errorf("unknown topology mode %q", t.Mode)
	}
	raw, err := json.Marshal(map[string]any{"topology": patch})
	if err != nil {
		return v, fmt.Errorf("topology %s: %w", v.Name, err)
	}
	v.patch = raw
	return v, nil
}

// Count is the number of cells of the axes.
func Count(axes []Axis) int {
	n := 1
	for _, a := range axes {
		n *= len(a.Values)
	}
	return n
}

// Coordinates are the value index of each axis for cell index i (last axis
// fastest, like nested loops over the axes in order).
func Coordinates(axes []Axis, i int) []int {
	coords := make([]int, len(axes))
	for k := len(axes) - 1; k >= 0; k-- {
		n := len(axes[k].Values)
		coords[k] = i % n
		i /= n
	}
	return coords
}

// Index is the cell index of the given coordinates.
func Index(axes []Axis, coords []int) int {
	i := 0
	for k, a := range axes {
		i = i*len(a.Values) + coords[k]
	}
	return i
}

// Expand builds every cell's spec: the template, then each axis's merge
// patch in axis order, decoded strictly (a field that is not part of a
// BenchmarkRun spec is an error naming the cell), then each shorthand in
// axis order. The API server still has the last word: the controller
// dry-runs every cell before creating anything.
func Expand(spec *benchv1.BenchmarkSweepSpec) ([]Axis, []Cell, error) {
	axes, err := ResolveAxes(spec)
	if err != nil {
		return nil, nil, err
	}
	template, err := json.Marshal(spec.Template)
	if err != nil {
		return nil, nil, fmt.Errorf("encode the template: %w", err)
	}
	n := Count(axes)
	cells := make([]Cell, 0, n)
	for i := 0; i < n; i++ {
		coords := Coordinates(axes, i)
		c := Cell{Index: i, Values: make([]benchv1.SweepCellValue, len(axes))}
		doc := template
		for k, a := range axes {
			v := a.Values[coords[k]]
			c.Values[k] = benchv1.SweepCellValue{Axis: a.Name, Value: v.Name, Number: v.Number}
			if v.patch == nil {
				continue
			}
			if doc, err = jsonpatch.MergePatch(doc, v.patch); err != nil {
				return nil, nil, fmt.Errorf("cell %d (%s): apply the patch of %s=%s: %w", i, c.Describe(), a.Name, v.Name, err)
			}
		}
		// Case-sensitive and strict, as the API server decodes: encoding/json
		// would take "recordcount" for recordCount.
		strict, err := kjson.UnmarshalStrict(doc, &c.Spec, kjson.DisallowUnknownFields)
		if err == nil && len(strict) > 0 {
			err = withFieldHints(strict)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("cell %d (%s): the patched spec is not a BenchmarkRun spec: %w", i, c.Describe(), err)
		}
		for k, a := range axes {
			if v := a.Values[coords[k]]; v.set != nil {
				v.set(&c.Spec)
			}
		}
		cells = append(cells, c)
	}
	return axes, cells, nil
}

func findAxis(axes []Axis, name string) *Axis {
	for i := range axes {
		if axes[i].Name == name {
			return &axes[i]
		}
	}
	return nil
}

func valueIndex(a *Axis, name string) int {
	for i, v := range a.Values {
		if v.Name == name {
			return i
		}
	}
	return -1
}

func valueNames(a *Axis) []string {
	names := make([]string, len(a.Values))
	for i, v := range a.Values {
		names[i] = v.Name
	}
	return names
}
