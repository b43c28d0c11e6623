package controllers

import (
	"encoding/json"
	"fmt"
	"math"
	"testing"
	"time"

	"k8s.io/utils/ptr"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/results"
)

// TestGrowthStatusSize: a Grow phase's status at its largest (200
// checkpoints, all four query classes, 16 shards, every number at full
// length) stays well within what etcd stores for the whole run.
func TestGrowthStatusSize(t *testing.T) {
	big := ptr.To[int64](math.MaxInt64 / 3)
	lat := results.LatencySummary{Count: math.MaxInt32, Errors: 12345, OpsPerSec: math.Pi * 1e5, MeanMicros: math.E * 1e3,
		P50Micros: 123456, P95Micros: 1234567, P99Micros: 12345678, P999Micros: 123456789, MaxMicros: 1234567890}
	g := &results.GrowthResult{TargetRecords: 200_000_000_000, CheckpointEvery: 1_000_000_000, PlannedCheckpoints: 200,
		InsertMode: results.InsertUnacknowledged}
	sizes := results.CollectionSizes{Count: big, Size: big, StorageSize: big, TotalIndexSize: big,
		IndexSizes: map[string]int64{"_id_": *big, "number_1": *big, "number1_1": *big, "date_-1": *big}}
	for i := 1; i <= 200; i++ {
		cp := results.GrowthCheckpoint{Index: i, Records: int64(i) * 1_000_000_000, Start: time.Now(), End: time.Now(),
			Insert: results.GrowthInsert{Records: 1, RecordsPerSec: math.Pi * 1e4, Latency: lat, Resumed: true},
			Sizes:  &results.CollectionStats{CollectionSizes: sizes}}
		for s := range 16 {
			cp.Sizes.Shards = append(cp.Sizes.Shards, results.ShardSizes{Shard: fmt.Sprintf("ssssssssssssssssssss-shard%d", s), CollectionSizes: sizes})
		}
		for _, q := range results.GrowthQueryOps {
			cp.Queries = append(cp.Queries, results.GrowthQuery{Name: q, Documents: math.MaxInt32, Latency: lat})
		}
		g.Checkpoints = append(g.Checkpoints, cp)
	}
	st, problems := growthStatus(g, 18)
	if len(problems) > 0 || len(st.Checkpoints) != 200 {
		t.Fatalf("%d rows, problems %v", len(st.Checkpoints), problems)
	}
	b, err := json.Marshal(benchv1.PhaseResult{Growth: st})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("growth status at its largest: %d KiB", len(b)>>10)
	if len(b) > 512<<10 {
		t.Errorf("%d KiB: too much of the run's 1.5 MB", len(b)>>10)
	}
}
