package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// The CSV's checkpoint rows: per run, Grow phase and checkpoint, an INSERT
// row and a row per query class, with the run's own numbers.
func TestGrowthCSV(t *testing.T) {
	sw, runs := loadFixture(t, "growth")
	s, err := FromSweep(sw, runs, nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := CSV(&buf, s); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	header := rows[0]
	col := func(name string) int {
		i := slices.Index(header, name)
		if i < 0 {
			t.Fatalf("no column %q in %q", name, header)
		}
		return i
	}
	wantTail := []string{"p999_us", "checkpoint", "records", "insert_mode", "resumed", "documents_per_query", "size_bytes",
		"storage_size_bytes", "total_index_size_bytes", "index_size_bytes:_id_", "index_size_bytes:_id_hashed",
		"index_size_bytes:date_-1", "index_size_bytes:number1_1", "index_size_bytes:number_1",
		"shard_count:shard0", "shard_count:shard1", "shard_count:shard2"}
	if got := header[col("p999_us"):]; !slices.Equal(got, wantTail) {
		t.Errorf("columns after p999_us: %q, want %q", got, wantTail)
	}
	byRun := map[string]benchv1.BenchmarkRun{}
	for _, r := range runs {
		byRun[r.Name] = r
	}
	seen := 0
	for _, r := range rows[1:] {
		if r[col("checkpoint")] == "" {
			continue
		}
		seen++
		run := byRun[r[col("run")]]
		g := run.Status.Results[0].Growth
		i, _ := strconv.Atoi(r[col("checkpoint")])
		cp := g.Checkpoints[i-1]
		want := map[string]string{"records": strconv.FormatInt(cp.Records, 10), "insert_mode": string(g.InsertMode),
			"resumed": strconv.FormatBool(cp.Resumed), "size_bytes": strconv.FormatInt(*cp.Sizes.Size, 10),
			"index_size_bytes:date_-1": strconv.FormatInt(cp.Sizes.IndexSizes["date_-1"], 10), "phase": "grow"}
		if op := r[col("operation")]; op == "INSERT" {
			want["ops_per_sec"] = plain(cp.InsertsPerSec)
			want["p99_us"] = strconv.FormatInt(cp.InsertP99Micros, 10)
		} else {
			q := slices.IndexFunc(cp.Queries, func(q benchv1.GrowthQueryResult) bool { return string(q.Name) == op })
			want["ops_per_sec"] = plain(cp.Queries[q].OpsPerSec)
			want["p50_us"] = strconv.FormatInt(cp.Queries[q].P50Micros, 10)
			want["documents_per_query"] = plain(cp.Queries[q].DocumentsPerQuery)
		}
		if len(cp.Sizes.Shards) > 0 {
			want["shard_count:shard1"] = strconv.FormatInt(*cp.Sizes.Shards[1].Count, 10)
		} else {
			want["shard_count:shard1"] = ""
			want["index_size_bytes:_id_hashed"] = ""
		}
		for k, v := range want {
			if got := r[col(k)]; got != v {
				t.Errorf("%s checkpoint %d %s: %s = %q, want %q", r[col("run")], i, r[col("operation")], k, got, v)
			}
		}
	}
	if want := len(runs) * 20 * 5; seen != want {
		t.Errorf("%d checkpoint rows, want %d (runs × 20 checkpoints × INSERT and 4 queries)", seen, want)
	}
}

// The JSON report keeps every run's growth as status has it and adds the
// cells' medians the other formats show.
func TestGrowthJSON(t *testing.T) {
	sw, runs := loadFixture(t, "growth")
	hist := Histograms{runs[0].Name: {"grow": []byte("\x1f\x8bgrow")}}
	s, err := FromSweep(sw, runs, hist)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := JSON(&buf, s); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Runs []struct {
			Metadata   metav1.ObjectMeta          `json:"metadata"`
			Status     benchv1.BenchmarkRunStatus `json:"status"`
			Histograms map[string][]byte          `json:"histograms"`
		} `json:"runs"`
		Growth []jsonGrowth `json:"growth"`
	}
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	for i, r := range got.Runs {
		if !reflect.DeepEqual(normalize(t, r.Status.Results[0].Growth), normalize(t, runs[i].Status.Results[0].Growth)) {
			t.Errorf("%s: the growth changed on the way", r.Metadata.Name)
		}
	}
	if string(got.Runs[0].Histograms["grow"]) != "\x1f\x8bgrow" {
		t.Errorf("the Grow phase's histograms were lost: %q", got.Runs[0].Histograms)
	}
	if len(got.Growth) != 6 {
		t.Fatalf("%d cells' growth, want 6", len(got.Growth))
	}
	// standalone/acknowledged at 120M: the median of its two runs, one
	// of which resumed there.
	g := got.Growth[1]
	cp := g.Checkpoints[11]
	var rates []float64
	for _, r := range runs {
		if r.Labels[benchv1.LabelCell] == "1" {
			rates = append(rates, r.Status.Results[0].Growth.Checkpoints[11].InsertsPerSec)
		}
	}
	if g.CellName != "standalone/acknowledged" || g.Repetitions != 2 || len(g.Checkpoints) != 20 || cp.Records != 120e6 ||
		len(rates) != 2 || cp.InsertsPerSec != (rates[0]+rates[1])/2 || !slices.Equal(cp.ResumedRepetitions, []int32{1}) ||
		len(cp.Queries) != 4 || cp.Queries[2].Name != "Q3" || cp.Size == nil || cp.IndexSizes["_id_"] == 0 || cp.ShardCounts != nil {
		t.Errorf("%s (%d reps, %d checkpoints): at 120M %+v; rates %v", g.CellName, g.Repetitions, len(g.Checkpoints), cp, rates)
	}
	if sh := got.Growth[3].Checkpoints[19].ShardCounts; len(sh) != 3 {
		t.Errorf("3-shards/unacknowledged at 200M: shards %v", sh)
	}
}
