package plugin

import (
	"math"
	"sort"
	"time"
)

// What top shows of a run's current phase, computed from this frame's
// scrapes of its loader pods and the previous frame's: rates and p99 over
// the time between the two (none on a pod's first scrape).

// laggingShare: a loader whose ops/s is below this share of the median of
// its phase's loaders is marked lagging. Loaders of one phase share the
// work evenly (YCSB's operationcount and target are divided among them),
// so a loader far below its peers is starved of CPU, placed on a slow
// node or waiting on a slow shard; a fifth below is well outside the
// jitter of a 2 s interval.
const laggingShare = 0.8

// liveView is the live numbers of one run's current phase.
type liveView struct {
	phase string
	// over is the time the rates are over (the longest time between a
	// loader's two scrapes); 0 on the first frame: no rates yet.
	over time.Duration
	// operations is what the loaders issued, warm-up included; planned
	// what they are to issue after their warm-up (0: bounded by time).
	operations, planned float64
	loaders             int
	measuring, finished int
	// elapsed is since the earliest loader's measured start; hasElapsed
	// false before any loader started measuring.
	elapsed      time.Duration
	hasElapsed   bool
	maxExecution time.Duration
	ops          []opView
	loaderRows   []loaderView
	// server is loader 0's server telemetry (none without loader 0 or
	// telemetry).
	server []serverView
	// problems are the loader pods whose scrape failed while others
	// answered.
	problems []string
	// grow is a Grow phase's latest checkpoint (its one loader's); nil
	// for a YCSB phase.
	grow *growScrape
}

// opView is one operation's row; the last row is "ALL", every
// operation's.
type opView struct {
	name            string
	total, errors   float64
	rate, errorRate float64
	hasRate         bool
	// p99 is in seconds, over the interval's successful calls.
	p99    float64
	hasP99 bool
}

type loaderView struct {
	index, pod string
	rate       float64
	hasRate    bool
	threads    float64
	state      string
	// ofMedian is rate over the median of the phase's loaders' rates;
	// 0 when unknown (a single loader, no rates yet).
	ofMedian float64
	lagging  bool
}

type serverView struct {
	process        string
	connections    float64
	hasConnections bool
	dirtyPercent   float64
	hasDirty       bool
	// rates are the opcounters per second by type; nil without a previous
	// sample.
	rates map[string]float64
}

// opAll names the row of every operation.
const opAll = "ALL"

// scraped is a loader pod's scrape in this frame and, when it was
// scraped in the previous frame too, that one.
type scraped struct {
	prev, cur *scrape
}

// newLiveView computes the view of one phase's loaders at now.
func newLiveView(loaders []scraped, now time.Time) *liveView {
	v := &liveView{loaders: len(loaders)}
	sort.SliceStable(loaders, func(i, j int) bool { return loaderIndex(loaders[i].cur) < loaderIndex(loaders[j].cur) })
	type opSum struct {
		opView
		latency    buckets
		latencyBad bool
	}
	sums := map[string]*opSum{}
	sum := func(name string) *opSum {
		if sums[name] == nil {
			sums[name] = &opSum{opView: opView{name: name}}
		}
		return sums[name]
	}
	var start float64
	for _, l := range loaders {
		cur, prev := l.cur, l.prev
		if v.phase == "" {
			v.phase = cur.phase
		}
		v.planned += cur.planned
		if cur.grow != nil {
			v.grow = cur.grow
		}
		v.maxExecution = max(v.maxExecution, time.Duration(cur.maxExecution*float64(time.Second)))
		if cur.startTime > 0 && (start == 0 || cur.startTime < start) {
			start = cur.startTime
		}
		lv := loaderView{index: cur.loader, pod: cur.pod, threads: cur.threads, state: loaderState(cur)}
		if cur.measuring {
			v.measuring++
		}
		if cur.finished {
			v.finished++
		}
		var dt time.Duration
		if prev != nil {
			dt = countersSpan(prev, cur)
			v.over = max(v.over, cur.at.Sub(prev.at))
		}
		for name, o := range cur.ops {
			s := sum(name)
			s.total += o.ok + o.errors
			s.errors += o.errors
			v.operations += o.ok + o.errors
			if prev == nil {
				continue
			}
			po := prev.ops[name]
			if po == nil {
				po = &opScrape{}
			}
			r, ok := rateOver(po.ok+po.errors, o.ok+o.errors, dt)
			if !ok {
				continue
			}
			er, _ := rateOver(po.errors, o.errors, dt)
			s.rate += r
			s.errorRate += er
			s.hasRate = true
			lv.rate += r
			lv.hasRate = true
			d, ok := increaseBuckets(po.latency, o.latency)
			if ok {
				s.latency, ok = addBuckets(s.latency, d)
			}
			s.latencyBad = s.latencyBad || !ok
		}
		v.loaderRows = append(v.loaderRows, lv)
		if cur.loader == "0" {
			var sdt time.Duration // the samples have their own clock: the scrapes' span
			if prev != nil {
				sdt = cur.at.Sub(prev.at)
			}
			v.server = serverViews(prev, cur, sdt)
		}
	}
	if start > 0 {
		v.elapsed = now.Sub(time.Unix(0, int64(start*float64(time.Second)))).Round(time.Second)
		v.hasElapsed = true
	}
	names := make([]string, 0, len(sums))
	for n := range sums {
		names = append(names, n)
	}
	sort.Strings(names)
	all := &opSum{opView: opView{name: opAll}}
	for _, n := range names {
		s := sums[n]
		if !s.latencyBad {
			s.p99, s.hasP99 = quantile(0.99, s.latency)
		}
		v.ops = append(v.ops, s.opView)
		all.total += s.total
		all.errors += s.errors
		all.rate += s.rate
		all.errorRate += s.errorRate
		all.hasRate = all.hasRate || s.hasRate
		var ok bool
		if !s.latencyBad && s.latency != nil {
			all.latency, ok = addBuckets(all.latency, s.latency)
			all.latencyBad = all.latencyBad || !ok
		}
	}
	if len(names) > 1 {
		if !all.latencyBad {
			all.p99, all.hasP99 = quantile(0.99, all.latency)
		}
		v.ops = append(v.ops, all.opView)
	}
	markLagging(v.loaderRows)
	return v
}

func loaderState(s *scrape) string {
	switch {
	case s.finished:
		return "finished"
	case s.grow != nil:
		// A Grow phase has no warm-up: it inserts from the start.
		return "growing"
	case s.measuring:
		return "measuring"
	case s.loader == "":
		return "starting"
	}
	return "warm-up"
}

// markLagging compares each running loader's rate with the median of
// theirs; finished loaders issue nothing and are left out.
func markLagging(rows []loaderView) {
	var rates []float64
	for _, r := range rows {
		if r.hasRate && r.state != "finished" {
			rates = append(rates, r.rate)
		}
	}
	if len(rates) < 2 {
		return
	}
	m := median(rates)
	if m <= 0 {
		return
	}
	for i := range rows {
		r := &rows[i]
		if r.hasRate && r.state != "finished" {
			r.ofMedian = r.rate / m
			r.lagging = r.ofMedian < laggingShare
		}
	}
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// serverViews is loader 0's server telemetry, by process name.
func serverViews(prev, cur *scrape, dt time.Duration) []serverView {
	names := make([]string, 0, len(cur.servers))
	for n := range cur.servers {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]serverView, 0, len(names))
	for _, n := range names {
		s := cur.servers[n]
		sv := serverView{process: n, connections: s.connections, hasConnections: s.hasConnections,
			dirtyPercent: s.dirtyRatio * 100, hasDirty: s.hasDirty}
		if prev != nil && prev.servers[n] != nil {
			p := prev.servers[n]
			sv.rates = map[string]float64{}
			for typ, c := range s.ops {
				pc, seen := p.ops[typ]
				if !seen {
					continue
				}
				if r, ok := rateOver(pc, c, dt); ok {
					sv.rates[typ] = r
				}
			}
		}
		out = append(out, sv)
	}
	return out
}

// roundMicros is a latency in seconds as whole microseconds, the unit of
// the run's status and of the other commands' tables.
func roundMicros(seconds float64) int64 {
	return int64(math.Round(seconds * 1e6))
}

// countersSpan is the time over which a loader's counters moved between
// two scrapes. The engine hands the exporter its measurements once a
// second (MetricLoaderObservedAt says when), so two scrapes 2 s apart may
// hold 2 or 3 of those steps: their own times would make the rate jump by
// half. The observations' times are exact; the scrapes' serve when the
// exposition has none.
func countersSpan(prev, cur *scrape) time.Duration {
	if prev.observedAt > 0 && cur.observedAt > 0 {
		return time.Duration((cur.observedAt - prev.observedAt) * float64(time.Second))
	}
	return cur.at.Sub(prev.at)
}
