package v1alpha1_test

import (
	"context"
	"strings"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// TestPlacementLayoutValidation: placement.layout and spreadTopologyKey
// are refused at kubectl apply where they cannot mean anything, and the
// layout defaults to SameNode (today's behaviour).
func TestPlacementLayoutValidation(t *testing.T) {
	c := newClient(t)
	ns := namespace(t, c)
	bad := []struct {
		name, placement, want string
	}{
		{"topology key without Spread", "{spreadTopologyKey: topology.kubernetes.io/zone}", "spreadTopologyKey can only be set when layout is Spread"},
		{"topology key with SameNode", "{layout: SameNode, spreadTopologyKey: kubernetes.io/hostname}", "spreadTopologyKey can only be set when layout is Spread"},
		{"nodeName with Spread", "{layout: Spread, nodeName: node-a}", "it cannot be set when layout is Spread"},
		{"unknown layout", "{layout: Everywhere}", `Unsupported value: "Everywhere"`},
		{"empty topology key", `{layout: Spread, spreadTopologyKey: ""}`, "spec.placement.spreadTopologyKey"},
		{"topology key that is no label key", "{layout: Spread, spreadTopologyKey: 'zone with spaces'}", "spec.placement.spreadTopologyKey"},
	}
	for i, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			spec := "  topology: {mode: Sharded, shards: 2}\n  placement: " + tc.placement + "\n"
			_, err := create(t, c, ns, run("layout-bad-"+itoa(i), spec))
			if err == nil {
				t.Fatalf("accepted; want %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q\ndoes not contain %q", err, tc.want)
			}
		})
	}
	good := []string{
		"{layout: SameNode, nodeName: node-a}",
		"{layout: Spread}",
		"{layout: Spread, spreadTopologyKey: topology.kubernetes.io/zone, nodeSelector: {pool: bench}}",
		"{layout: Spread, spreadTopologyKey: kubernetes.io/hostname, exclusive: false}",
	}
	for i, p := range good {
		spec := "  topology: {mode: Sharded, shards: 2}\n  placement: " + p + "\n"
		if _, err := create(t, c, ns, run("layout-ok-"+itoa(i), spec)); err != nil {
			t.Errorf("placement %s rejected: %v", p, err)
		}
	}
	if _, err := create(t, c, ns, minimal("layout-default")); err != nil {
		t.Fatal(err)
	}
	var br benchv1.BenchmarkRun
	if err := c.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "layout-default"}, &br); err != nil {
		t.Fatal(err)
	}
	if br.Spec.Placement.Layout != benchv1.LayoutSameNode || br.Spec.Placement.SpreadTopologyKey != "" {
		t.Errorf("placement defaults to layout %q, spreadTopologyKey %q; want SameNode and none", br.Spec.Placement.Layout, br.Spec.Placement.SpreadTopologyKey)
	}
}
