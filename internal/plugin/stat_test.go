package plugin

import (
	"encoding/csv"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/telemetry"
)

// statPayload is a two-process phase sampled once a second for 4 s: process
// j inserts 1000·(j+1)/s with 10+j connections; the mongos reports no
// cache (absent, printed "-").
func statPayload(start time.Time) *telemetry.Payload {
	some := func(v int64) telemetry.Opt[int64] { return telemetry.Opt[int64]{V: v, Valid: true} }
	somef := func(v float64) telemetry.Opt[float64] { return telemetry.Opt[float64]{V: v, Valid: true} }
	rep := &telemetry.Payload{Start: start, End: start.Add(4 * time.Second)}
	for j, p := range []struct{ role, pod string }{{"shard", "demo-shard0"}, {"mongos", "demo-mongos"}} {
		b := telemetry.NewSeriesBuilder(start, time.Second)
		for i := 0; i <= 4; i++ {
			s := telemetry.Sample{Time: start.Add(time.Duration(i) * time.Second), Version: "8.0.16", UptimeMillis: some(int64(50000 + 1000*i))}
			s.Counters[telemetry.CounterInsert] = some(int64(1000 * (j + 1) * i))
			s.Counters[telemetry.CounterNetIn] = some(int64(2e6 * i))
			s.Gauges[telemetry.GaugeConnections] = somef(float64(10 + j))
			if p.role == "shard" {
				s.Gauges[telemetry.GaugeCacheUsedPercent] = somef(42.5)
			}
			b.Add(&s)
		}
		rep.Processes = append(rep.Processes, telemetry.ProcessPayload{Role: p.role, Pod: p.pod, Series: b.Series()})
	}
	return rep
}

// stat reads the telemetry ConfigMap a run's status names and prints it
// as mongostat does, in every format; a phase without telemetry is a usage
// error.
func TestStatFromAPIServer(t *testing.T) {
	c := newClient(t)
	ns := createNamespace(t, c, "stat-")
	run := createRun(t, c, ns, "demo")
	start := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	b, _, err := telemetry.EncodePayload(statPayload(start), contract.MaxTelemetryBytes)
	if err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "demo-telemetry-load", Namespace: ns},
		BinaryData: map[string][]byte{contract.TelemetryKey: b}}
	if err := c.Create(testContext(t), cm); err != nil {
		t.Fatal(err)
	}
	st := succeededStatus()
	st.Results[0].Telemetry = cm.Name // load has telemetry; run has none
	setStatus(t, c, run, st)

	code, stdout, stderr := runPlugin(t, adminKubeconfig(t), "stat", "run/demo", "-n", ns)
	if code != ExitOK || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	// A header, then 5 one-second intervals × 2 processes, interval by
	// interval. The first interval holds the first samples and no rate.
	if len(lines) != 11 || !strings.HasPrefix(lines[0], "PHASE") || !strings.Contains(lines[0], "INSERT") ||
		!strings.Contains(lines[0], "USED%") || !strings.Contains(lines[0], "NET_IN(MB/s)") {
		t.Fatalf("table:\n%s", stdout)
	}
	for i, want := range [][]string{
		{"load", "demo-shard0", "+1s", "-", "42.5", "10"},
		{"load", "demo-shard0", "+2s", "1000", "-", "42.5", "2.00", "10"},
		{"load", "demo-mongos", "+2s", "2000", "-", "2.00", "11"},
		{"load", "demo-mongos", "+5s", "2000"},
	} {
		row := strings.Fields(lines[[]int{1, 3, 4, 10}[i]])
		for _, w := range want {
			if !slices.Contains(row, w) {
				t.Errorf("row %q lacks %q", row, w)
			}
		}
	}

	code, stdout, _ = runPlugin(t, adminKubeconfig(t), "stat", "run/demo", "-n", ns, "-o", "csv", "--phase", "load")
	recs, err := csv.NewReader(strings.NewReader(stdout)).ReadAll()
	if code != ExitOK || err != nil || len(recs) != 11 || recs[0][0] != "phase" || recs[1][2] != "demo-shard0" || recs[1][3] != "1.000" {
		t.Errorf("csv: exit %d, %v:\n%s", code, err, stdout)
	}
	code, stdout, _ = runPlugin(t, adminKubeconfig(t), "stat", "run/demo", "-n", ns, "-o", "json")
	var doc struct {
		Rows []statRow `json:"rows"`
	}
	if code != ExitOK || json.Unmarshal([]byte(stdout), &doc) != nil || len(doc.Rows) != 10 ||
		doc.Rows[2].Rates["insert"] != 1000 || doc.Rows[0].Gauges["cacheUsedPercent"] != 42.5 {
		t.Errorf("json: exit %d:\n%s", code, stdout)
	}
	if _, ok := doc.Rows[1].Gauges["cacheUsedPercent"]; ok {
		t.Errorf("the mongos reported no cache, yet: %+v", doc.Rows[1])
	}

	code, _, stderr = runPlugin(t, adminKubeconfig(t), "stat", "run/demo", "-n", ns, "--phase", "run")
	if code != ExitNoVerdict || !strings.Contains(stderr, "phase run of run/demo has no server telemetry") {
		t.Errorf("--phase run: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = runPlugin(t, adminKubeconfig(t), "stat", "run/demo", "-n", ns, "-o", "yaml")
	if code != ExitNoVerdict || !strings.Contains(stderr, `unknown output format "yaml"`) {
		t.Errorf("-o yaml: exit %d, stderr %q", code, stderr)
	}
}
