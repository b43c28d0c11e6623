package telemetry

// bytesPerMB is the unit of the network rates: MB/s as mongostat's and
// most network tools' megabytes, 10^6 bytes.
const bytesPerMB = 1e6

// Summary is one process's telemetry over a phase, in a few numbers: what
// status.results[].server[] shows. A nil value means the process never
// reported the fields it derives from (Absent says which), never zero.
type Summary struct {
	// Role is the process's job: standalone, configsvr, shard or mongos.
	Role string `json:"role"`
	// Pod runs the process.
	Pod string `json:"pod"`
	// Version is the server version the process reported.
	Version string `json:"version,omitempty"`
	// Samples is the number of serverStatus samples taken.
	Samples int `json:"samples"`
	// Restarts counts the restarts seen during the phase.
	Restarts int `json:"restarts,omitempty"`
	// PrimaryChanges counts the changes of primary the process saw (see
	// Series.PrimaryChanges); 0 for a process that is no replica set
	// member (Absent then names repl.isWritablePrimary).
	PrimaryChanges int `json:"primaryChanges,omitempty"`
	// MaxReplLagMillis is Series.MaxReplLagMillis.
	MaxReplLagMillis *int64 `json:"maxReplLagMillis,omitempty"`

	PeakConnections *int64   `json:"peakConnections,omitempty"`
	MeanConnections *float64 `json:"meanConnections,omitempty"`
	// MinConnectionsAvailable is the lowest connections.available; 0
	// means the process refused new connections.
	MinConnectionsAvailable *int64 `json:"minConnectionsAvailable,omitempty"`
	// OpsPerSecond are the mean rates of the opcounters over the phase.
	OpsPerSecond OpRates `json:"opsPerSecond"`
	// MaxCacheUsedPercent and MaxCacheDirtyPercent are the highest WiredTiger
	// cache fill and dirty fill, in % of the maximum bytes configured.
	MaxCacheUsedPercent  *float64 `json:"maxCacheUsedPercent,omitempty"`
	MaxCacheDirtyPercent *float64 `json:"maxCacheDirtyPercent,omitempty"`
	// CacheMaxBytes is the WiredTiger cache's configured size
	// (wiredTiger.cache["maximum bytes configured"]), its highest value in
	// the phase; CacheMaxBytesChanged is set when it was not the same in
	// every sample (a runtime reconfiguration, or a restart with another
	// size).
	CacheMaxBytes        *int64 `json:"cacheMaxBytes,omitempty"`
	CacheMaxBytesChanged bool   `json:"cacheMaxBytesChanged,omitempty"`
	// MeanNetInMBps and MeanNetOutMBps are network.bytesIn/bytesOut in MB
	// (10^6 bytes) per second.
	MeanNetInMBps  *float64 `json:"meanNetInMBps,omitempty"`
	MeanNetOutMBps *float64 `json:"meanNetOutMBps,omitempty"`
	// EvictionsByAppThreads is the number of pages application threads had
	// to evict from the cache during the phase; EvictionsByAppThreadsFrom
	// says which statistics it was read from (set with it).
	EvictionsByAppThreads     *int64         `json:"evictionsByAppThreads,omitempty"`
	EvictionsByAppThreadsFrom EvictionSource `json:"evictionsByAppThreadsFrom,omitempty"`
	// MinReadTicketsAvailable and MinWriteTicketsAvailable are the lowest
	// execution tickets left; 0 means operations queued for a ticket.
	MinReadTicketsAvailable  *int64 `json:"minReadTicketsAvailable,omitempty"`
	MinWriteTicketsAvailable *int64 `json:"minWriteTicketsAvailable,omitempty"`
	// MaxQueue is the highest globalLock.currentQueue.total.
	MaxQueue *int64 `json:"maxQueue,omitempty"`

	// Absent lists the serverStatus fields the process never reported.
	Absent []string `json:"absent,omitempty"`
}

// OpRates are operations per second by opcounter.
type OpRates struct {
	Insert  *float64 `json:"insert,omitempty"`
	Query   *float64 `json:"query,omitempty"`
	Update  *float64 `json:"update,omitempty"`
	Delete  *float64 `json:"delete,omitempty"`
	Getmore *float64 `json:"getmore,omitempty"`
	Command *float64 `json:"command,omitempty"`
}

// Summarize condenses a process's series; role and pod are the caller's.
// Rates are total counts over total time (so a downsampled series gives
// the same answer as the raw one), means are over samples.
func Summarize(role, pod string, s *Series) Summary {
	sum := Summary{Role: role, Pod: pod, Version: s.Version, Samples: s.Samples(), Restarts: s.Restarts,
		PrimaryChanges: s.PrimaryChanges, MaxReplLagMillis: s.MaxReplLagMillis, Absent: s.Absent}
	rate := func(c Counter, scale float64) *float64 {
		r, ok := s.Total(c).Rate()
		if !ok {
			return nil
		}
		return ptr(r / scale)
	}
	sum.OpsPerSecond = OpRates{
		Insert:  rate(CounterInsert, 1),
		Query:   rate(CounterQuery, 1),
		Update:  rate(CounterUpdate, 1),
		Delete:  rate(CounterDelete, 1),
		Getmore: rate(CounterGetmore, 1),
		Command: rate(CounterCommand, 1),
	}
	sum.MeanNetInMBps = rate(CounterNetIn, bytesPerMB)
	sum.MeanNetOutMBps = rate(CounterNetOut, bytesPerMB)
	if d := s.Total(CounterEvictedByApp); d.Millis > 0 {
		sum.EvictionsByAppThreads = ptr(d.Count)
		sum.EvictionsByAppThreadsFrom = s.EvictedByAppFrom
	}

	type pick int
	const (
		mean pick = iota
		lowest
		highest
	)
	gauge := func(g Gauge, p pick) *float64 {
		st := s.Gauge(g)
		if st.N == 0 {
			return nil
		}
		return ptr([...]float64{mean: st.Mean, lowest: st.Min, highest: st.Max}[p])
	}
	whole := func(v *float64) *int64 {
		if v == nil {
			return nil
		}
		return ptr(int64(*v))
	}
	sum.PeakConnections = whole(gauge(GaugeConnections, highest))
	sum.MeanConnections = gauge(GaugeConnections, mean)
	sum.MinConnectionsAvailable = whole(gauge(GaugeConnectionsAvailable, lowest))
	sum.CacheMaxBytes = whole(gauge(GaugeCacheMaxBytes, highest))
	if st := s.Gauge(GaugeCacheMaxBytes); st.N > 0 && st.Min != st.Max {
		sum.CacheMaxBytesChanged = true
	}
	sum.MaxCacheUsedPercent = gauge(GaugeCacheUsedPercent, highest)
	sum.MaxCacheDirtyPercent = gauge(GaugeCacheDirtyPercent, highest)
	sum.MinReadTicketsAvailable = whole(gauge(GaugeReadTicketsAvailable, lowest))
	sum.MinWriteTicketsAvailable = whole(gauge(GaugeWriteTicketsAvailable, lowest))
	sum.MaxQueue = whole(gauge(GaugeQueueTotal, highest))
	return sum
}

func ptr[T any](v T) *T { return &v }
