package loader

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/loader/k8sresult"
	"github.com/mongobench/mongobench/internal/results"
	"github.com/mongobench/mongobench/internal/testutil/stubmongo"
)

// stepDownFor is how long the stub is a secondary after replSetStepDown.
const stepDownFor = 1500 * time.Millisecond

// detectionSlack bounds how much later than the stub's return to primary
// a loader may see its first success: the driver learns of the new
// primary from its monitor's awaitable hello, which the server answers at
// the change (stubmongo replset.go), or at worst from the next check,
// which the driver spaces by minHeartbeatFrequencyMS, 500 ms
// (go.mongodb.org/mongo-driver/v2 v2.9.3 x/mongo/driver/topology/
// server.go: minHeartbeatInterval, the rateLimiter of update); plus
// scheduling on a busy test machine.
const detectionSlack = 500*time.Millisecond + 400*time.Millisecond

// runWithStepDown runs `loader run` against a replica-set stub with a
// StepDown 1 s into the measured window, holding a write in flight across
// it (StallNextWrite), and returns the decoded result and the stub.
func runWithStepDown(t *testing.T, retryWrites bool, extraEnv map[string]string, newWriter func() (*k8sresult.Writer, error),
	extra ...string) (*results.Result, *stubmongo.Server, string) {
	t.Helper()
	srv := stubmongo.Start(t, stubmongo.ReplicaSet("rs0", stepDownFor))
	url := fmt.Sprintf("mongodb://%s/ycsb?replicaSet=rs0&retryWrites=%t", srv.Addr(), retryWrites)
	// Once the measured window has started (the first write: no warm-up,
	// and nothing writes before), hold the next write 1.5 s: it is in
	// flight at the instant, 1 s in, and reaches the server while it is a
	// secondary, whatever the driver learnt meanwhile.
	stalled := make(chan struct{})
	go func() {
		defer close(stalled)
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			if srv.Counts().Update > 0 {
				srv.StallNextWrite(1500 * time.Millisecond)
				return
			}
		}
	}()
	args := append([]string{"run", "-P", "workloada", "-p", "recordcount=1000", "-p", "operationcount=0",
		"-p", "maxexecutiontime=4", "-threads", "4", "-p", "mongodb.url=" + url,
		"--" + contract.FlagDisruption, "0,StepDown,1s,stepDownSecs=60,catchUpSecs=10"}, extra...)
	code, stdout, stderr, _ := runMain(t, extraEnv, newWriter, args...)
	<-stalled
	if code != ExitOK {
		t.Fatalf("loader run: exit %d\n%s", code, stderr)
	}
	if newWriter != nil {
		return nil, srv, stderr
	}
	r, err := results.Decode([]byte(stdout))
	if err != nil {
		t.Fatalf("decode result: %v\n%s", err, stderr)
	}
	return r, srv, stderr
}

// TestDisruptionStepDown is the acceptance test of StepDown's
// measurement: a real `loader run` against a replica-set stub that
// refuses writes for a known 1.5 s after replSetStepDown. Loader 0 sends
// it once, at the instant; the measured write and read unavailability
// and the time to a new primary are 1.5 s, plus at most the driver's
// detection (detectionSlack); the write in flight meets NotWritablePrimary
// (retryWrites=false) or is retried and succeeds (retryWrites=true).
func TestDisruptionStepDown(t *testing.T) {
	for _, retryWrites := range []bool{false, true} {
		t.Run(fmt.Sprintf("retryWrites=%t", retryWrites), func(t *testing.T) {
			r, srv, stderr := runWithStepDown(t, retryWrites, nil, nil, "--result", "-")
			if n := srv.StepDowns(); n != 1 {
				t.Errorf("the stub saw %d replSetStepDown, want 1", n)
			}
			if len(r.Disruptions) != 1 {
				t.Fatalf("%d disruptions in the result, want 1", len(r.Disruptions))
			}
			d := r.Disruptions[0]
			if d.Index != 0 || d.Action != "StepDown" || d.AtMillis != 1000 || !d.Instant.Equal(r.Start.Add(time.Second)) {
				t.Errorf("disruption %d %s at %d ms, instant %v (window start %v)", d.Index, d.Action, d.AtMillis, d.Instant, r.Start)
			}
			o := d.Outcome
			if o == nil || o.State != results.DisruptionDone || o.Primary != srv.Addr() || o.Sent.Before(d.Instant) ||
				o.Sent.Sub(d.Instant) > 200*time.Millisecond {
				t.Fatalf("outcome %+v, want Done, sent to %s at the instant %v", o, srv.Addr(), d.Instant)
			}
			l := d.Loaders[0]
			t.Logf("write %v µs (%d writes), read %v µs (%d reads), new primary %v µs, errors %v, retried %d (%d ok), outcome %+v",
				deref(l.WriteUnavailableMicros), l.Writes, deref(l.ReadUnavailableMicros), l.Reads, deref(l.NewPrimaryMicros),
				d.Errors, d.Retried, d.RetriedOK, *o)
			within := func(what string, us *int64) {
				t.Helper()
				if us == nil {
					t.Errorf("%s: not measured\n%s", what, stderr)
					return
				}
				got := time.Duration(*us) * time.Microsecond
				if got < stepDownFor || got > stepDownFor+detectionSlack {
					t.Errorf("%s: %v, want %v to %v", what, got, stepDownFor, stepDownFor+detectionSlack)
				}
			}
			within("write unavailability", l.WriteUnavailableMicros)
			within("read unavailability", l.ReadUnavailableMicros)
			within("time to a new primary", l.NewPrimaryMicros)
			if l.Writes < 1 || l.Reads < 1 {
				t.Errorf("%d writes and %d reads counted until the first successes", l.Writes, l.Reads)
			}
			if retryWrites {
				if d.Retried < 1 || d.RetriedOK < 1 {
					t.Errorf("retryWrites: %d retried, %d of them succeeded; want the write in flight retried (errors %v)", d.Retried, d.RetriedOK, d.Errors)
				}
			} else if d.Errors["NotWritablePrimary"] < 1 {
				t.Errorf("errors %v, want the write in flight's NotWritablePrimary", d.Errors)
			}
			// The series: 100 ms points from 1 s before the instant (the
			// window's start) to the window's end, 3 s after it.
			s := d.Series
			if s.IntervalMillis != results.DisruptionIntervalMillis || d.SeriesStartMillis != -1000 ||
				len(s.Points) < 38 || len(s.Points) > 41 {
				t.Fatalf("series: %d points of %d ms from %d ms", len(s.Points), s.IntervalMillis, d.SeriesStartMillis)
			}
			// Before the instant writes flow; while the member is a
			// secondary (from 200 ms after the instant to 1.4 s) nothing
			// succeeds.
			okIn := func(from, to int) (n int64) {
				for i := from; i < to; i++ {
					for _, po := range s.Points[i].Ops {
						n += po.Latency.Count()
					}
				}
				return n
			}
			if okIn(0, 9) == 0 {
				t.Error("no successful operation in the series before the instant")
			}
			if n := okIn(12, 24); n != 0 {
				t.Errorf("%d successful operations while the member was a secondary", n)
			}
		})
	}
}

// fakeConfigMaps is a Kubernetes API server that keeps ConfigMaps in
// memory: create (409 AlreadyExists), get, and merge-patch of the data,
// the calls k8sresult.Writer makes.
type fakeConfigMaps struct {
	mu    sync.Mutex
	items map[string]map[string]any
}

func (f *fakeConfigMaps) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	body, _ := io.ReadAll(r.Body)
	var obj map[string]any
	_ = json.Unmarshal(body, &obj)
	name := r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:]
	status := func(code int, reason string) {
		w.WriteHeader(code)
		_, _ = fmt.Fprintf(w, `{"kind":"Status","reason":%q,"code":%d}`, reason, code)
	}
	switch r.Method {
	case http.MethodPost:
		meta, _ := obj["metadata"].(map[string]any)
		name, _ = meta["name"].(string)
		if _, ok := f.items[name]; ok {
			status(http.StatusConflict, "AlreadyExists")
			return
		}
		f.items[name] = obj
		w.WriteHeader(http.StatusCreated)
	case http.MethodGet:
		cm, ok := f.items[name]
		if !ok {
			status(http.StatusNotFound, "NotFound")
			return
		}
		_ = json.NewEncoder(w).Encode(cm)
	case http.MethodPatch:
		cm, ok := f.items[name]
		if !ok {
			status(http.StatusNotFound, "NotFound")
			return
		}
		data, _ := cm["data"].(map[string]any)
		if data == nil {
			data = map[string]any{}
			cm["data"] = data
		}
		patch, _ := obj["data"].(map[string]any)
		for k, v := range patch {
			data[k] = v
		}
		w.WriteHeader(http.StatusOK)
	}
}

func (f *fakeConfigMaps) data(name string) map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	cm, ok := f.items[name]
	if !ok {
		return nil
	}
	d, _ := cm["data"].(map[string]any)
	return d
}

// TestDisruptionLedger: with --result-configmap, loader 0 creates the
// disruption's ledger before it acts and completes it after; a ledger
// that exists already (a replaced pod's predecessor acted) means nothing
// is sent, and the outcome is what the ledger says.
func TestDisruptionLedger(t *testing.T) {
	const job = "r1-run"
	ledger := contract.DisruptionLedgerName(job, 0)
	env := map[string]string{"POD_NAMESPACE": "ns", "POD_NAME": job + "-0"}
	for _, tc := range []struct {
		name     string
		existing map[string]any // the ledger's data before the run; nil: none
		sent     int64
		state    string
		errPart  string
	}{
		{"first", nil, 1, results.DisruptionDone, ""},
		{"sent before, no outcome", map[string]any{contract.DisruptionActionKey: "StepDown", contract.DisruptionActorKey: "r1-run-0-abc",
			contract.DisruptionSentKey: "2026-01-02T03:04:05.5Z"}, 0, results.DisruptionUnknown,
			"sent by r1-run-0-abc at 2026-01-02T03:04:05.5Z, which did not report how it ended"},
		{"sent before, failed", map[string]any{contract.DisruptionActionKey: "StepDown", contract.DisruptionActorKey: "r1-run-0-abc",
			contract.DisruptionSentKey: "2026-01-02T03:04:05.5Z", contract.DisruptionReturnedKey: "2026-01-02T03:04:15.5Z",
			contract.DisruptionErrorKey: "replSetStepDown: (ExceededTimeLimit) no electable secondary caught up"}, 0,
			results.DisruptionFailed, "ExceededTimeLimit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := &fakeConfigMaps{items: map[string]map[string]any{}}
			if tc.existing != nil {
				fake.items[ledger] = map[string]any{"metadata": map[string]any{"name": ledger}, "data": tc.existing}
			}
			api := httptest.NewServer(fake)
			defer api.Close()
			newWriter := func() (*k8sresult.Writer, error) { return k8sresult.New(api.URL, http.DefaultClient, ""), nil }
			_, srv, stderr := runWithStepDown(t, false, env, newWriter, "--result-configmap", contract.ResultConfigMapPrefix(job),
				"--result-labels", "bench.mongobench.io/run=r1")
			if n := srv.StepDowns(); n != tc.sent {
				t.Fatalf("the stub saw %d replSetStepDown, want %d\n%s", n, tc.sent, stderr)
			}
			fake.mu.Lock()
			ledgerCM := fake.items[ledger]
			fake.mu.Unlock()
			r := fakeResult(t, fake, job, stderr)
			o := r.Disruptions[0].Outcome
			if o == nil || o.State != tc.state || !strings.Contains(o.Error, tc.errPart) {
				t.Fatalf("outcome %+v, want %s with %q", o, tc.state, tc.errPart)
			}
			data := fake.data(ledger)
			if tc.existing == nil {
				meta, _ := ledgerCM["metadata"].(map[string]any)
				labels, _ := meta["labels"].(map[string]any)
				if ledgerCM["immutable"] != false || labels["bench.mongobench.io/run"] != "r1" {
					t.Errorf("ledger %v: want mutable, labelled like the result", ledgerCM)
				}
				if data[contract.DisruptionActionKey] != "StepDown" || data[contract.DisruptionActorKey] != job+"-0" ||
					data[contract.DisruptionReturnedKey] != o.Returned.UTC().Format(time.RFC3339Nano) ||
					data[contract.DisruptionSentKey] != o.Sent.UTC().Format(time.RFC3339Nano) || data[contract.DisruptionErrorKey] != "" ||
					data[contract.DisruptionPrimaryKey] != srv.Addr() {
					t.Errorf("ledger data %v, want the action, its actor, primary, sent %v and returned %v", data, o.Sent, o.Returned)
				}
			} else if len(data) != len(tc.existing) {
				t.Errorf("the existing ledger was changed: %v", data)
			}
		})
	}
}

func deref(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestDisruptionPodDeletionRequests: a KillPrimary or RestartMember is the
// controller's. At each instant loader 0 creates the ledger, once, with
// the action and the member to delete as its driver knows it (the
// primary; nothing for a member by index, which the controller maps), and
// sends MongoDB nothing: no replSetStepDown, and the phase's writes flow
// on. Its outcome says the request was made; the controller's replaces
// it. Without a ledger (no result ConfigMap) nothing is requested.
func TestDisruptionPodDeletionRequests(t *testing.T) {
	const job = "r1-run"
	env := map[string]string{"POD_NAMESPACE": "ns", "POD_NAME": job + "-0"}
	fake := &fakeConfigMaps{items: map[string]map[string]any{}}
	api := httptest.NewServer(fake)
	defer api.Close()
	newWriter := func() (*k8sresult.Writer, error) { return k8sresult.New(api.URL, http.DefaultClient, ""), nil }
	srv := stubmongo.Start(t, stubmongo.ReplicaSet("rs0", stepDownFor))
	url := fmt.Sprintf("mongodb://%s/ycsb?replicaSet=rs0", srv.Addr())
	run := func(newWriter func() (*k8sresult.Writer, error), out ...string) (*results.Result, string) {
		t.Helper()
		args := append([]string{"run", "-P", "workloada", "-p", "recordcount=100", "-p", "operationcount=0",
			"-p", "maxexecutiontime=2", "-threads", "2", "-p", "mongodb.url=" + url,
			"--" + contract.FlagDisruption, "0,KillPrimary,300ms",
			"--" + contract.FlagDisruption, "1,RestartMember,600ms,member=2",
			"--" + contract.FlagDisruption, "2,RestartMember,900ms,member=primary",
		}, out...)
		code, stdout, stderr, _ := runMain(t, env, newWriter, args...)
		if code != ExitOK {
			t.Fatalf("loader run: exit %d\n%s", code, stderr)
		}
		if newWriter == nil {
			r, err := results.Decode([]byte(stdout))
			if err != nil {
				t.Fatalf("decode result: %v\n%s", err, stderr)
			}
			return r, stderr
		}
		return fakeResult(t, fake, job, stderr), stderr
	}

	r, stderr := run(newWriter, "--result-configmap", contract.ResultConfigMapPrefix(job), "--result-labels", "bench.mongobench.io/run=r1")
	if n := srv.StepDowns(); n != 0 {
		t.Errorf("the stub saw %d replSetStepDown: a pod deletion sends MongoDB nothing", n)
	}
	if len(r.Disruptions) != 3 {
		t.Fatalf("%d disruptions in the result, want 3", len(r.Disruptions))
	}
	wantTarget := []any{srv.Addr(), nil, srv.Addr()}
	for i, d := range r.Disruptions {
		name := contract.DisruptionLedgerName(job, i)
		data := fake.data(name)
		o := d.Outcome
		if o == nil || o.State != results.DisruptionUnknown || o.Sent.Before(d.Instant) || o.Sent.Sub(d.Instant) > 200*time.Millisecond ||
			o.Primary != srv.Addr() || !strings.Contains(o.Error, "requested from the controller (ledger "+name+")") {
			t.Errorf("disruption %d: outcome %+v, want the request at the instant %v", i, o, d.Instant)
			continue
		}
		if data[contract.DisruptionActionKey] != d.Action || data[contract.DisruptionSentKey] != o.Sent.UTC().Format(time.RFC3339Nano) ||
			data[contract.DisruptionActorKey] != job+"-0" || data[contract.DisruptionPrimaryKey] != srv.Addr() ||
			data[contract.DisruptionTargetKey] != wantTarget[i] {
			t.Errorf("ledger %s: %v, want %s of target %v", name, data, d.Action, wantTarget[i])
		}
		for _, k := range []string{contract.DisruptionReturnedKey, contract.DisruptionErrorKey, contract.DisruptionPodKey, contract.DisruptionPodUIDKey} {
			if _, ok := data[k]; ok {
				t.Errorf("ledger %s: the loader wrote %s, the controller's: %v", name, k, data)
			}
		}
		// The writes went on: the stub never stepped down.
		if len(d.Errors) > 0 || d.Retried > 0 {
			t.Errorf("disruption %d: errors %v, %d retried", i, d.Errors, d.Retried)
		}
	}
	if !strings.Contains(stderr, `disruption 1: RestartMember of "member 2" requested from the controller`) {
		t.Errorf("log:\n%s", stderr)
	}

	// By hand, without ConfigMaps: nothing to ask the controller with.
	r, _ = run(nil, "--result", "-")
	for _, d := range r.Disruptions {
		if o := d.Outcome; o == nil || o.State != results.DisruptionFailed || !strings.Contains(o.Error, "this loader writes no ConfigMaps") {
			t.Errorf("disruption %d by hand: outcome %+v", d.Index, o)
		}
	}
	if n := srv.StepDowns(); n != 0 {
		t.Errorf("the stub saw %d replSetStepDown", n)
	}
}

// fakeResult decodes loader 0's result ConfigMap of Job job from the fake
// API server (binaryData: base64, as JSON carries bytes).
func fakeResult(t *testing.T, fake *fakeConfigMaps, job, stderr string) *results.Result {
	t.Helper()
	fake.mu.Lock()
	resCM := fake.items[contract.ResultConfigMapName(job, 0)]
	fake.mu.Unlock()
	bin, _ := resCM["binaryData"].(map[string]any)
	enc, _ := bin[contract.ConfigMapKey].(string)
	var raw []byte
	if err := json.Unmarshal([]byte(`"`+enc+`"`), &raw); err != nil {
		t.Fatal(err)
	}
	r, err := results.Decode(raw)
	if err != nil {
		t.Fatalf("result ConfigMap: %v\n%s", err, stderr)
	}
	return r
}

// TestDisruptionStepDownOfAShard: a StepDown of one shard of a Sharded
// topology. The loader reaches the data through mongos (here a plain stub
// that never refuses anything) and watches the shard's replica set (a
// replica-set stub that is a secondary for 1.5 s after replSetStepDown)
// with a client of its own, through which loader 0 steps it down. The
// operations through mongos all succeed, so the unavailability is the
// Partial one: up to the first success that started after the loader's
// watcher saw the shard's primary again, 1.5 s plus the driver's
// detection; and the time to a new primary is the watcher's.
func TestDisruptionStepDownOfAShard(t *testing.T) {
	mongos := stubmongo.Start(t)
	shard := stubmongo.Start(t, stubmongo.ReplicaSet("shard1", stepDownFor))
	url := fmt.Sprintf("mongodb://%s/ycsb", mongos.Addr())
	code, stdout, stderr, _ := runMain(t, nil, nil, "run", "-P", "workloada", "-p", "recordcount=1000", "-p", "operationcount=0",
		"-p", "maxexecutiontime=4", "-threads", "4", "-p", "mongodb.url="+url, "--result", "-",
		"--"+contract.FlagDisruption, "0,StepDown,1s,stepDownSecs=60,catchUpSecs=10,target=shard1,hosts="+shard.Addr())
	if code != ExitOK {
		t.Fatalf("loader run: exit %d\n%s", code, stderr)
	}
	r, err := results.Decode([]byte(stdout))
	if err != nil {
		t.Fatalf("decode result: %v\n%s", err, stderr)
	}
	if n := shard.StepDowns(); n != 1 {
		t.Errorf("the shard saw %d replSetStepDown, want 1", n)
	}
	if len(r.Disruptions) != 1 {
		t.Fatalf("%d disruptions", len(r.Disruptions))
	}
	d := r.Disruptions[0]
	if o := d.Outcome; o == nil || o.State != results.DisruptionDone || o.Primary != shard.Addr() {
		t.Fatalf("outcome %+v, want Done, sent to the shard's primary %s\n%s", o, shard.Addr(), stderr)
	}
	if !strings.Contains(stderr, "of replica set shard1") {
		t.Errorf("the log does not name the shard's replica set:\n%s", stderr)
	}
	l := d.Loaders[0]
	t.Logf("write %v µs, read %v µs, new primary %v µs, errors %v", deref(l.WriteUnavailableMicros), deref(l.ReadUnavailableMicros),
		deref(l.NewPrimaryMicros), d.Errors)
	for what, us := range map[string]*int64{"write unavailability": l.WriteUnavailableMicros, "read unavailability": l.ReadUnavailableMicros,
		"time to a new primary": l.NewPrimaryMicros} {
		if us == nil {
			t.Errorf("%s: not measured", what)
			continue
		}
		if got := time.Duration(*us) * time.Microsecond; got < stepDownFor || got > stepDownFor+detectionSlack {
			t.Errorf("%s: %v, want %v to %v", what, got, stepDownFor, stepDownFor+detectionSlack)
		}
	}
	if len(d.Errors) != 0 {
		t.Errorf("errors %v: nothing through mongos failed", d.Errors)
	}
}

// TestDisruptionPause: a Pause is the controller's, like a pod deletion:
// loader 0 creates the ledger at the instant with the primary's address,
// and sends MongoDB nothing. The test then plays the controller and the
// freezing container: it freezes the stub (nothing answered, hellos
// included) 300 ms after the request, for 1.5 s, and writes when into the
// ledger. The loaders read the ledger after their window: the
// unavailability of writes and reads of a frozen primary counts from the
// freeze, not from the instant (operations started in between passed,
// and the lead is the controller's, not the database's), and is the
// freeze's 1.5 s, give or take the first operation after the thaw; the
// outcome is the controller's to fill.
func TestDisruptionPause(t *testing.T) {
	t.Run("primary", func(t *testing.T) { testPause(t, true) })
	t.Run("secondary", func(t *testing.T) { testPause(t, false) })
}

// testPause runs TestDisruptionPause's scenario; the ledger says the
// frozen member was the primary, or another member (a secondary: then
// nothing that goes to the primary waits for it).
func testPause(t *testing.T, primary bool) {
	const job = "r1-run"
	const freeze = 1500 * time.Millisecond
	env := map[string]string{"POD_NAMESPACE": "ns", "POD_NAME": job + "-0"}
	fake := &fakeConfigMaps{items: map[string]map[string]any{}}
	api := httptest.NewServer(fake)
	defer api.Close()
	newWriter := func() (*k8sresult.Writer, error) { return k8sresult.New(api.URL, http.DefaultClient, ""), nil }
	srv := stubmongo.Start(t, stubmongo.ReplicaSet("rs0", stepDownFor))
	url := fmt.Sprintf("mongodb://%s/ycsb?replicaSet=rs0", srv.Addr())
	ledger := contract.DisruptionLedgerName(job, 0)
	var frozen, thawed time.Time
	played := make(chan struct{})
	go func() { // the controller and the freezing container
		defer close(played)
		for deadline := time.Now().Add(30 * time.Second); fake.data(ledger) == nil; time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				return
			}
		}
		time.Sleep(300 * time.Millisecond) // the controller's and the kubelet's reaction
		frozen = time.Now()
		srv.Freeze(freeze)
		thawed = frozen.Add(freeze)
		time.Sleep(time.Until(thawed))
		fake.mu.Lock()
		data := fake.items[ledger]["data"].(map[string]any)
		// The member frozen is the primary: its pod is the first label
		// of the primary's host, as the controller maps it (the stub's
		// host is an IP address here).
		host, _, _ := strings.Cut(data[contract.DisruptionPrimaryKey].(string), ".")
		data[contract.DisruptionPodKey] = host
		if !primary {
			data[contract.DisruptionPodKey] = "rs0-2"
		}
		data[contract.DisruptionFrozenKey] = frozen.UTC().Format(time.RFC3339Nano)
		data[contract.DisruptionThawedKey] = thawed.UTC().Format(time.RFC3339Nano)
		data[contract.DisruptionReturnedKey] = thawed.UTC().Format(time.RFC3339Nano)
		data[contract.DisruptionErrorKey] = ""
		fake.mu.Unlock()
	}()
	code, _, stderr, _ := runMain(t, env, newWriter, "run", "-P", "workloada", "-p", "recordcount=100", "-p", "operationcount=0",
		"-p", "maxexecutiontime=4", "-threads", "4", "-p", "mongodb.url="+url,
		"--"+contract.FlagDisruption, "0,Pause,1s,member=primary,duration=1500ms",
		"--result-configmap", contract.ResultConfigMapPrefix(job), "--result-labels", "bench.mongobench.io/run=r1")
	<-played
	if code != ExitOK {
		t.Fatalf("loader run: exit %d\n%s", code, stderr)
	}
	r := fakeResult(t, fake, job, stderr)
	if frozen.IsZero() {
		t.Fatalf("loader 0 created no ledger %s\n%s", ledger, stderr)
	}
	d := r.Disruptions[0]
	if data := fake.data(ledger); data[contract.DisruptionActionKey] != "Pause" || data[contract.DisruptionTargetKey] != srv.Addr() {
		t.Errorf("ledger %v, want a Pause of the primary %s", data, srv.Addr())
	}
	if n := srv.StepDowns(); n != 0 {
		t.Errorf("the stub saw %d replSetStepDown", n)
	}
	l := d.Loaders[0]
	t.Logf("freeze %v after the instant; write %v µs, read %v µs", frozen.Sub(d.Instant), deref(l.WriteUnavailableMicros), deref(l.ReadUnavailableMicros))
	for what, us := range map[string]*int64{"write unavailability": l.WriteUnavailableMicros, "read unavailability": l.ReadUnavailableMicros} {
		if us == nil {
			t.Errorf("%s: not measured\n%s", what, stderr)
			continue
		}
		got := time.Duration(*us) * time.Microsecond
		if !primary {
			// The stub froze all the same, but the ledger says a
			// secondary was: no onset, the first success after the
			// instant, within the lead before the freeze.
			if got > 300*time.Millisecond {
				t.Errorf("%s: %v after a secondary's freeze, want the first success after the instant", what, got)
			}
			continue
		}
		// From the freeze, not from the instant (the controller's and
		// the kubelet's lead is no unavailability of the database): the
		// freeze, then the first operation after the thaw.
		if got < freeze || got > freeze+detectionSlack {
			t.Errorf("%s: %v, want %v to %v (the freeze began %v after the instant)", what, got, freeze, freeze+detectionSlack, frozen.Sub(d.Instant))
		}
	}
}
