package loader

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/loader/k8sresult"
	"github.com/mongobench/mongobench/internal/loader/mongodb"
	"github.com/mongobench/mongobench/internal/results"
	"github.com/mongobench/mongobench/internal/ycsb"
)

// A phase's disruptions (contract.FlagDisruption): every loader measures
// around each one (the engine, ycsb.RunOptions.Disruptions, and the
// binding, mongodb.Config.Disruptions); loader 0 acts at its instant
// (actor). What the loader adds to the engine's measurements: the outcome
// (loader 0) and when its driver knew of a new primary.

// disruptionFlags is the repeatable --disruption, decoded as it is parsed.
type disruptionFlags []contract.Disruption

func (d *disruptionFlags) String() string {
	parts := make([]string, 0, len(*d))
	for _, x := range *d {
		parts = append(parts, contract.EncodeDisruption(x))
	}
	return strings.Join(parts, " ")
}

func (d *disruptionFlags) Set(v string) error {
	x, err := contract.DecodeDisruption(v)
	if err != nil {
		return err //nolint:wrapcheck // the flag package names the flag
	}
	for _, o := range *d {
		if o.Index == x.Index {
			return fmt.Errorf("disruption %d given twice", x.Index)
		}
	}
	*d = append(*d, x)
	return nil
}

// specs are the engine's view of the disruptions: one that hits a replica
// set of its own (a shard, the config server) is Partial.
func (d disruptionFlags) specs() []ycsb.DisruptionSpec {
	out := make([]ycsb.DisruptionSpec, 0, len(d))
	for _, x := range d {
		out = append(out, ycsb.DisruptionSpec{Index: x.Index, Action: x.Action, At: x.At, Partial: x.Target != ""})
	}
	return out
}

// byIndex is the disruption of that index.
func (d disruptionFlags) byIndex(i int) (contract.Disruption, bool) {
	for _, x := range d {
		if x.Index == i {
			return x, true
		}
	}
	return contract.Disruption{}, false
}

// watchers are the clients of the replica sets the disruptions hit, by
// name (contract.Disruption.Target), besides the loader's own client:
// every loader watches each such set (its primaries), and loader 0 steps
// it down through its watcher.
type watchers map[string]*mongodb.Client

// watchTargets connects a watcher to each replica set a disruption
// targets; none without targets.
func watchTargets(ctx context.Context, d disruptionFlags, cfg mongodb.Config) (watchers, error) {
	w := watchers{}
	for _, x := range d {
		if x.Target == "" || w[x.Target] != nil {
			continue
		}
		c, err := mongodb.WatchReplicaSet(ctx, cfg, x.Target, x.Hosts)
		if err != nil {
			w.close(ctx)
			return nil, fmt.Errorf("disruption %d: %w", x.Index, err)
		}
		w[x.Target] = c
	}
	return w, nil
}

func (w watchers) close(ctx context.Context) {
	for _, c := range w {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), closeTimeout)
		_ = c.Close(cctx) // the results are in; a failed disconnect changes nothing
		cancel()
	}
}

// client is the client that watches the replica set d hits: its
// watcher, or the loader's own (a ReplicaSet topology's disruptions).
func (w watchers) client(d contract.Disruption, own *mongodb.Client) *mongodb.Client {
	if c := w[d.Target]; d.Target != "" && c != nil {
		return c
	}
	return own
}

// stepDownTimeout bounds replSetStepDown beyond its catch-up period.
const stepDownTimeout = 30 * time.Second

// actor is loader 0's side: it acts at each disruption's instant, once,
// with the ledger when there is a result ConfigMap, and never blocks the
// measuring threads (a goroutine per disruption).
type actor struct {
	disruptions disruptionFlags
	client      *mongodb.Client
	watchers    watchers
	sink        *configMapSink // nil: no ledger (the loader run by hand)
	job         string
	hostname    string
	log         io.Writer

	wg       sync.WaitGroup
	stop     chan struct{}
	stopOnce sync.Once
	mu       sync.Mutex
	outcomes map[int]*results.DisruptionOutcome
}

func newActor(d disruptionFlags, client *mongodb.Client, w watchers, sink *configMapSink, hostname string, log io.Writer) *actor {
	a := &actor{disruptions: d, client: client, watchers: w, sink: sink, hostname: hostname, log: log,
		stop: make(chan struct{}), outcomes: map[int]*results.DisruptionOutcome{}}
	if sink != nil {
		// The ledger is named after the Job of the result ConfigMaps.
		a.job = jobOf(sink)
	}
	return a
}

// start schedules every disruption from the measured window's start.
func (a *actor) start(ctx context.Context, windowStart time.Time) {
	for _, d := range a.disruptions {
		a.wg.Add(1)
		go func() {
			defer a.wg.Done()
			t := time.NewTimer(time.Until(windowStart.Add(d.At)))
			defer t.Stop()
			select {
			case <-t.C:
			case <-a.stop:
				return
			case <-ctx.Done():
				return
			}
			o := a.act(ctx, d)
			a.mu.Lock()
			a.outcomes[d.Index] = o
			a.mu.Unlock()
		}()
	}
}

// finish stops what has not started (the window ended before its
// instant: NotReached), waits for the actions in progress and returns
// every disruption's outcome.
func (a *actor) finish() map[int]*results.DisruptionOutcome {
	a.stopOnce.Do(func() { close(a.stop) })
	a.wg.Wait()
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, d := range a.disruptions {
		if a.outcomes[d.Index] == nil {
			a.outcomes[d.Index] = &results.DisruptionOutcome{State: results.DisruptionNotReached}
		}
	}
	return a.outcomes
}

// act performs disruption d once: ledger first (AlreadyExists: someone
// acted before; report what the ledger says), then the action, then its
// outcome into the ledger. Errors are the outcome's, never the phase's.
func (a *actor) act(ctx context.Context, d contract.Disruption) *results.DisruptionOutcome {
	select {
	case <-a.stop: // the window ended as the timer fired
		return nil
	default:
	}
	// The replica set it hits: the loader's own, or a shard's or the
	// config server's through its watcher.
	set := a.watchers.client(d, a.client)
	primary := ""
	if p := mongodb.PrimaryAt(set.Primaries(), time.Now()); p.Addr != "" {
		primary = p.Addr
	}
	if contract.ByController(d.Action) {
		return a.request(ctx, d, set, primary)
	}
	var ledger string
	if a.sink != nil {
		ledger = contract.DisruptionLedgerName(a.job, d.Index)
		if o, acted := a.claim(ctx, ledger, d, primary, "", time.Now()); !acted {
			return o
		}
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Duration(d.CatchUpSecs)*time.Second+stepDownTimeout)
	sent, returned, primary, err := set.StepDown(sctx, d.StepDownSecs, d.CatchUpSecs)
	cancel()
	o := &results.DisruptionOutcome{State: results.DisruptionDone, Sent: sent, Returned: &returned, Primary: primary}
	if err != nil {
		o.State, o.Error = results.DisruptionFailed, err.Error()
	}
	_, _ = fmt.Fprintf(a.log, "disruption %d: %s sent to %q%s at %s: %s in %v%s\n", d.Index, d.Action, primary, ofSet(d),
		sent.UTC().Format(time.RFC3339Nano), o.State, returned.Sub(sent).Round(time.Millisecond), errSuffix(o.Error))
	if ledger != "" {
		data := map[string]string{
			contract.DisruptionSentKey:     sent.UTC().Format(time.RFC3339Nano),
			contract.DisruptionReturnedKey: returned.UTC().Format(time.RFC3339Nano),
			contract.DisruptionErrorKey:    o.Error,
			contract.DisruptionPrimaryKey:  primary,
		}
		uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), resultWriteTimeout)
		if err := a.sink.writer.Update(uctx, a.sink.cm.Namespace, ledger, data); err != nil {
			warn(Env{Stderr: a.log}, fmt.Sprintf("disruption %d: ledger %s: %v (the action's outcome is in the result)", d.Index, ledger, err))
		}
		cancel()
	}
	return o
}

// request asks the controller for a pod deletion (KillPrimary,
// RestartMember, KillMongos) or a Pause: the ledger, created once, names the member as
// this loader's driver knows it (contract.DisruptionTargetKey), and
// nothing is sent to MongoDB. The controller deletes the pod and writes
// how it went into the ledger; it reports the outcome from there, so the
// loader's own says only that the request was made (Unknown until the
// controller's replaces it), or what an existing ledger said.
func (a *actor) request(ctx context.Context, d contract.Disruption, set *mongodb.Client, primary string) *results.DisruptionOutcome {
	// A member by index, or the mongos (KillMongos): the controller knows
	// its pod itself.
	target := ""
	switch {
	case d.Action == "KillPrimary", d.Member == "primary":
		target = primary
	case d.Member == "secondary":
		target = set.Secondary()
	}
	now := time.Now()
	if a.sink == nil {
		return &results.DisruptionOutcome{State: results.DisruptionFailed, Sent: now, Returned: &now, Primary: primary,
			Error: "not requested: a pod deletion or a Pause is the controller's, through the disruption's ledger, and this loader writes no ConfigMaps"}
	}
	ledger := contract.DisruptionLedgerName(a.job, d.Index)
	if o, acted := a.claim(ctx, ledger, d, primary, target, now); !acted {
		return o
	}
	_, _ = fmt.Fprintf(a.log, "disruption %d: %s of %q%s requested from the controller at %s (ledger %s)\n", d.Index, d.Action,
		cmp.Or(target, "member "+d.Member), ofSet(d), now.UTC().Format(time.RFC3339Nano), ledger)
	return &results.DisruptionOutcome{State: results.DisruptionUnknown, Sent: now, Primary: primary,
		Error: fmt.Sprintf("requested from the controller (ledger %s), which carries it out and reports how it ended", ledger)}
}

// ofSet names the replica set d hits, for the log ("" the loader's own).
func ofSet(d contract.Disruption) string {
	if d.Target == "" {
		return ""
	}
	return " of replica set " + d.Target
}

func errSuffix(e string) string {
	if e == "" {
		return ""
	}
	return ": " + e
}

// claim creates the ledger, create-only, sent at now. acted is false when the action
// must not be sent: the ledger existed (o is what it says) or could not
// be created (o says why).
func (a *actor) claim(ctx context.Context, name string, d contract.Disruption, primary, target string,
	now time.Time) (o *results.DisruptionOutcome, acted bool) {
	cm := a.sink.cm
	cm.Name = name
	cm.Mutable = true
	cm.Labels = make(map[string]string, len(a.sink.cm.Labels))
	for k, v := range a.sink.cm.Labels {
		cm.Labels[k] = v
	}
	cm.Data = map[string]string{
		contract.DisruptionActionKey:  d.Action,
		contract.DisruptionSentKey:    now.UTC().Format(time.RFC3339Nano),
		contract.DisruptionActorKey:   a.hostname,
		contract.DisruptionPrimaryKey: primary,
	}
	if target != "" {
		cm.Data[contract.DisruptionTargetKey] = target
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), resultWriteTimeout)
	defer cancel()
	err := a.sink.writer.Create(wctx, &cm)
	switch {
	case err == nil:
		return nil, true
	case errors.Is(err, k8sresult.ErrAlreadyExists):
		data, gerr := a.sink.writer.Get(wctx, cm.Namespace, name)
		if gerr != nil {
			return &results.DisruptionOutcome{State: results.DisruptionUnknown,
				Error: fmt.Sprintf("sent before (ledger %s exists) but the ledger cannot be read: %v", name, gerr)}, false
		}
		return ledgerOutcome(name, data), false
	}
	t := time.Now()
	return &results.DisruptionOutcome{State: results.DisruptionFailed, Sent: now, Returned: &t,
		Error: fmt.Sprintf("not sent: cannot create the ledger %s, without which it could be sent twice: %v", name, err)}, false
}

// ledgerOutcome is what an existing ledger says of an action sent before.
func ledgerOutcome(name string, data map[string]string) *results.DisruptionOutcome {
	sent, _ := time.Parse(time.RFC3339Nano, data[contract.DisruptionSentKey])
	o := &results.DisruptionOutcome{Sent: sent, Primary: data[contract.DisruptionPrimaryKey]}
	returned, err := time.Parse(time.RFC3339Nano, data[contract.DisruptionReturnedKey])
	switch {
	case err == nil && !returned.Before(sent):
		o.Returned = &returned
		o.State = results.DisruptionDone
		if e := data[contract.DisruptionErrorKey]; e != "" {
			o.State, o.Error = results.DisruptionFailed, e
		}
	default:
		o.State = results.DisruptionUnknown
		o.Error = fmt.Sprintf("sent by %s at %s, which did not report how it ended (ledger %s)",
			data[contract.DisruptionActorKey], data[contract.DisruptionSentKey], name)
	}
	return o
}

// completeDisruptions adds what the loader knows to the engine's
// measurements: when the driver that watches the replica set each hit
// (the loader's own, or its watcher's) first knew of a new primary, and
// loader 0's outcomes.
//
// The time to a new primary counts, like the unavailability, from when the
// disruption began (starts: the instant, or a Pause's freeze).
func completeDisruptions(ds []results.Disruption, primaries func(index int) []mongodb.PrimaryChange,
	starts func(index int, action string, instant time.Time) time.Time, outcomes map[int]*results.DisruptionOutcome) {
	for i := range ds {
		d := &ds[i]
		if outcomes != nil {
			d.Outcome = outcomes[d.Index]
		}
		if d.Outcome != nil && d.Outcome.State == results.DisruptionNotReached {
			continue
		}
		if t, ok := mongodb.NewPrimaryAfter(primaries(d.Index), d.Instant, d.Instant.Add(results.DisruptionAfterMillis*time.Millisecond)); ok {
			us := max(t.Sub(starts(d.Index, d.Action, d.Instant)), 0).Microseconds()
			for j := range d.Loaders {
				d.Loaders[j].NewPrimaryMicros = &us
			}
		}
	}
}

// pauseStart is when a Pause of the primary began: when its mongod was
// seen stopped, as the ledger says; ok false for anything else (its
// times count from the instant).
func pauseStart(ctx context.Context, paused *pauseLedgers, index int, action string, instant time.Time) (time.Time, bool) {
	if action != "Pause" {
		return time.Time{}, false
	}
	p, ok := paused.get(ctx, index, instant)
	if !ok || !p.primary || !p.frozen.After(instant) {
		return time.Time{}, false
	}
	return p.frozen, true
}

// pauseLedgerGrace is how long after the instant a loader waits for loader
// 0's ledger of a Pause to exist at all.
const pauseLedgerGrace = 10 * time.Second

// pauseTimes are a Pause's frozen and thawed instants as its ledger says,
// and whether the member frozen was the primary loader 0 knew at the
// instant.
type pauseTimes struct {
	frozen, thawed time.Time
	primary        bool
}

// pauseLedgers reads the Pauses' ledgers once the window is over, for the
// onsets (the frozen instant: during a freeze operations only stall, so
// none shows the disruption, and those started between the instant and
// the freeze pass) and, for a Partial one, the recovery (the thaw).
// Without a ConfigMap writer (a loader run by hand) there is none.
type pauseLedgers struct {
	sink        *configMapSink
	disruptions disruptionFlags
	log         io.Writer

	mu    sync.Mutex
	times map[int]*pauseTimes // nil entry: read, not there
}

func newPauseLedgers(d disruptionFlags, sink *configMapSink, log io.Writer) *pauseLedgers {
	return &pauseLedgers{sink: sink, disruptions: d, log: log, times: map[int]*pauseTimes{}}
}

// get returns the Pause's times, polling its ledger until it has both or
// the wait ends (instant + duration + contract.PauseReportWait); ok false
// when unknown.
func (p *pauseLedgers) get(ctx context.Context, index int, instant time.Time) (pauseTimes, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if t, seen := p.times[index]; seen {
		if t == nil {
			return pauseTimes{}, false
		}
		return *t, true
	}
	d, ok := p.disruptions.byIndex(index)
	if !ok || d.Action != "Pause" || p.sink == nil || instant.After(time.Now()) { // the last: not reached
		p.times[index] = nil
		return pauseTimes{}, false
	}
	name := contract.DisruptionLedgerName(jobOf(p.sink), index)
	deadline := instant.Add(d.Duration + contract.PauseReportWait)
	for {
		gctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), resultWriteTimeout)
		data, err := p.sink.writer.Get(gctx, p.sink.cm.Namespace, name)
		cancel()
		if errors.Is(err, k8sresult.ErrNotFound) && time.Now().After(instant.Add(pauseLedgerGrace)) {
			break // loader 0 creates it at the instant: never requested
		}
		if err == nil {
			frozen, ferr := time.Parse(time.RFC3339Nano, data[contract.DisruptionFrozenKey])
			thawed, terr := time.Parse(time.RFC3339Nano, data[contract.DisruptionThawedKey])
			if ferr == nil && terr == nil && !frozen.IsZero() && !thawed.IsZero() {
				// The pod's name is its host's first label (topology.Host).
				host, _, _ := strings.Cut(data[contract.DisruptionPrimaryKey], ".")
				primary := host != "" && strings.EqualFold(host, data[contract.DisruptionPodKey])
				p.times[index] = &pauseTimes{frozen: frozen, thawed: thawed, primary: primary}
				return *p.times[index], true
			}
			if data[contract.DisruptionReturnedKey] != "" { // ended without them: refused, or failed
				break
			}
		}
		if !time.Now().Before(deadline) || ctx.Err() != nil {
			break
		}
		select {
		case <-time.After(time.Second):
		case <-ctx.Done():
		}
	}
	warn(Env{Stderr: p.log}, fmt.Sprintf("disruption %d: ledger %s does not say when the Pause froze and thawed the member: "+
		"its unavailability is counted from the instant", index, name))
	p.times[index] = nil
	return pauseTimes{}, false
}

// jobOf is the phase's Job, from the loader's result ConfigMap
// (<job>-result-<i>, contract.ResultConfigMapPrefix).
func jobOf(sink *configMapSink) string {
	prefix := strings.TrimSuffix(sink.cm.Name, "-"+sink.cm.Labels[contract.LabelLoaderIndex])
	return strings.TrimSuffix(prefix, "-result")
}
