package controllers

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/topology"
)

// TestReadinessBranches: what readiness says of each process, one row per
// branch (ago and now are run_problems_test.go's).
func TestReadinessBranches(t *testing.T) {
	standalone := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Name: "sa"},
		Spec: benchv1.BenchmarkRunSpec{Topology: benchv1.TopologySpec{Mode: benchv1.TopologyStandalone}}}
	sharded := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Name: "sh"},
		Spec: benchv1.BenchmarkRunSpec{Topology: benchv1.TopologySpec{Mode: benchv1.TopologySharded, Shards: ptr.To[int32](2)}}}
	pod := func(ready corev1.ConditionStatus) *corev1.Pod {
		return &corev1.Pod{Status: corev1.PodStatus{Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: ready}}}}
	}
	deleting := pod(corev1.ConditionTrue)
	deleting.DeletionTimestamp = ptr.To(ago(time.Second))
	up, down := pod(corev1.ConditionTrue), pod(corev1.ConditionFalse)
	noCondition := &corev1.Pod{}

	for _, tc := range []struct {
		name            string
		run             *benchv1.BenchmarkRun
		pods            map[string]*corev1.Pod
		wantAll, wantDB bool
		wantMsg         string
	}{
		{"standalone ready", standalone, map[string]*corev1.Pod{"sa-mongod": up}, true, true, "mongod ready"},
		{"standalone pod missing", standalone, nil, false, false, "mongod not ready"},
		{"standalone not ready", standalone, map[string]*corev1.Pod{"sa-mongod": down}, false, false, "mongod not ready"},
		{"standalone without a Ready condition", standalone, map[string]*corev1.Pod{"sa-mongod": noCondition}, false, false, "mongod not ready"},
		{"standalone being deleted", standalone, map[string]*corev1.Pod{"sa-mongod": deleting}, false, false, "mongod not ready"},
		{"sharded all ready", sharded, map[string]*corev1.Pod{"sh-cfg": up, "sh-shard0": up, "sh-shard1": up, "sh-mongos": up},
			true, true, "config server ready, 2/2 shards ready, mongos ready"},
		{"sharded data ready, mongos not (before the bootstrap)", sharded, map[string]*corev1.Pod{"sh-cfg": up, "sh-shard0": up, "sh-shard1": up},
			false, true, "config server ready, 2/2 shards ready, mongos not ready"},
		{"sharded, a shard not ready", sharded, map[string]*corev1.Pod{"sh-cfg": up, "sh-shard0": up, "sh-shard1": down, "sh-mongos": up},
			false, false, "config server ready, 1/2 shards ready, mongos ready"},
		{"sharded, config server not ready", sharded, map[string]*corev1.Pod{"sh-cfg": down, "sh-shard0": up, "sh-shard1": up, "sh-mongos": up},
			false, false, "config server not ready, 2/2 shards ready, mongos ready"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			all, db, msg := readiness(&runState{run: tc.run, pods: tc.pods}, topology.Processes(tc.run))
			if all != tc.wantAll || db != tc.wantDB || msg != tc.wantMsg {
				t.Errorf("got all=%t dataReady=%t %q, want all=%t dataReady=%t %q", all, db, msg, tc.wantAll, tc.wantDB, tc.wantMsg)
			}
		})
	}
}
