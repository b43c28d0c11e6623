package controllers

// This file reads a phase's server telemetry (sampled in the cluster by
// loader 0 of the phase, internal/telemetry) into status.results[].server
// and .collection, and keeps the full payload in a ConfigMap of its own.

import (
	"context"
	"errors"
	"fmt"
	"math"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/telemetry"
	"github.com/mongobench/mongobench/internal/topology"
)

// Bounds of a telemetry payload, which comes from a pod and is not trusted.
const (
	// MaxTelemetryDecodedBytes bounds the payload's decompressed size.
	MaxTelemetryDecodedBytes = telemetry.MaxDecodedBytes
	// maxTelemetryText bounds the strings copied into status (pod, version,
	// shard and index names).
	maxTelemetryText = 253
	// maxIndexes is MongoDB's limit of indexes per collection.
	maxIndexes = 64
)

// keepTelemetry adds a finished phase's server telemetry to its result,
// when loader 0 reported any: the summaries into res, the payload itself
// into the ConfigMap <run>-telemetry-<phase>. Telemetry is a companion of
// the results, never a condition of them: an unusable payload leaves res
// without it and says why in a Warning event.
func (r *BenchmarkRunReconciler) keepTelemetry(ctx context.Context, s *runState, ph *benchv1.PhaseSpec, jobName string, res *benchv1.PhaseResult) error {
	cm := s.configMaps[contract.ResultConfigMapName(jobName, 0)]
	if cm == nil {
		return nil
	}
	data, ok := cm.BinaryData[contract.TelemetryKey]
	if !ok {
		return nil // telemetry disabled or unavailable
	}
	rep, server, coll, err := decodeTelemetry(data, len(topology.Processes(s.run)))
	if err != nil {
		s.warnf(benchv1.EventTelemetryInvalid, "phase %s: the server telemetry in ConfigMap %s is unusable, the results are kept without it: %v",
			ph.Name, cm.Name, err)
		return nil
	}
	if err := r.create(ctx, topology.TelemetryConfigMap(s.run, ph.Name, data)); err != nil {
		return err
	}
	res.Server, res.Collection = server, coll
	explainElections(rep, res, topology.TelemetryInterval(s.run), s.run, ph)
	res.MaxReplicationLagMillis = maxReplicationLag(server)
	res.Telemetry = topology.TelemetryConfigMapName(s.run, ph.Name)
	return nil
}

// telemetrySummaries decodes a payload and condenses it into the status
// fields of a phase. The payload must be fit for the API server: one entry
// per pod, at most maxProcesses (the run's topology) of them, known roles,
// bounded names, finite numbers; anything else is an error, so that a bad
// payload can never make the status patch fail.
func telemetrySummaries(b []byte, maxProcesses int) ([]benchv1.ServerSummary, *benchv1.CollectionSummary, error) {
	_, server, coll, err := decodeTelemetry(b, maxProcesses)
	return server, coll, err
}

// decodeTelemetry is telemetrySummaries with the decoded payload, which
// holds more than the summaries (the times of primary changes).
func decodeTelemetry(b []byte, maxProcesses int) (*telemetry.Payload, []benchv1.ServerSummary, *benchv1.CollectionSummary, error) {
	rep, err := telemetry.DecodePayload(b)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("decode: %w", err)
	}
	if len(rep.Processes) > maxProcesses {
		return nil, nil, nil, fmt.Errorf("%d processes reported, the topology has %d", len(rep.Processes), maxProcesses)
	}
	seen := map[string]bool{}
	var server []benchv1.ServerSummary
	for i := range rep.Processes {
		p := &rep.Processes[i]
		if p.Pod == "" || len(p.Pod) > maxTelemetryText || seen[p.Pod] {
			return nil, nil, nil, fmt.Errorf("process %d: pod %.64q is empty, too long or reported twice", i, p.Pod)
		}
		seen[p.Pod] = true
		sum, err := serverSummary(p)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("process %s: %w", p.Pod, err)
		}
		server = append(server, sum)
	}
	var coll *benchv1.CollectionSummary
	if rep.Collection != nil && rep.Collection.Final != nil {
		if coll, err = collectionSummary(rep.Collection.Final, maxProcesses); err != nil {
			return nil, nil, nil, fmt.Errorf("collection statistics: %w", err)
		}
	}
	return rep, server, coll, nil
}

// maxReplicationLag is the largest lag any primary reported, nil when none
// did.
func maxReplicationLag(server []benchv1.ServerSummary) *int64 {
	var out *int64
	for _, s := range server {
		if l := s.MaxReplicationLagMillis; l != nil && (out == nil || *l > *out) {
			out = ptrTo(*l)
		}
	}
	return out
}

// role maps the sampler's role names onto the API's.
func role(name string) (benchv1.ProcessRole, bool) {
	switch r := benchv1.ProcessRole(name); r {
	case benchv1.RoleStandalone, benchv1.RoleConfigServer, benchv1.RoleShard, benchv1.RoleMongos, benchv1.RoleMember:
		return r, true
	}
	return "", false
}

// evictionSource maps the telemetry's name of the app evictions' statistics
// onto the API's ("" when there are none).
func evictionSource(s telemetry.EvictionSource) (string, bool) {
	switch s {
	case "":
		return "", true
	case telemetry.EvictionsPagesEvicted:
		return benchv1.AppEvictionsPagesEvicted, true
	case telemetry.EvictionsAttemptsMinusFailures:
		return benchv1.AppEvictionsAttemptsMinusFailures, true
	}
	return "", false
}

// serverSummary is a process's status entry: telemetry.Summarize, rounded
// to 2 decimals.
func serverSummary(p *telemetry.ProcessPayload) (benchv1.ServerSummary, error) {
	role, ok := role(p.Role)
	if !ok {
		return benchv1.ServerSummary{}, fmt.Errorf("unknown role %.32q", p.Role)
	}
	sum := p.Summary()
	if len(sum.Version) > maxTelemetryText {
		return benchv1.ServerSummary{}, errors.New("version too long")
	}
	evictionsFrom, ok := evictionSource(sum.EvictionsByAppThreadsFrom)
	if !ok {
		return benchv1.ServerSummary{}, fmt.Errorf("unknown source of the app evictions %.32q", sum.EvictionsByAppThreadsFrom)
	}
	bad := false
	f := func(v *float64) *float64 {
		if v == nil {
			return nil
		}
		if math.IsNaN(*v) || math.IsInf(*v, 0) {
			bad = true
			return nil
		}
		return ptrTo(round2(*v))
	}
	out := benchv1.ServerSummary{
		Role: role, Pod: p.Pod, Version: sum.Version,
		Samples: clamp32(sum.Samples), Restarts: clamp32(sum.Restarts), SampleErrors: clamp32(p.Errors),
		PrimaryChanges:           clamp32(sum.PrimaryChanges),
		MaxReplicationLagMillis:  sum.MaxReplLagMillis,
		PeakConnections:          sum.PeakConnections,
		MeanConnections:          f(sum.MeanConnections),
		MinConnectionsAvailable:  sum.MinConnectionsAvailable,
		MaxCacheUsedPercent:      f(sum.MaxCacheUsedPercent),
		MaxCacheDirtyPercent:     f(sum.MaxCacheDirtyPercent),
		CacheMaxBytes:            sum.CacheMaxBytes,
		CacheMaxBytesChanged:     sum.CacheMaxBytesChanged,
		MeanNetInMBps:            f(sum.MeanNetInMBps),
		MeanNetOutMBps:           f(sum.MeanNetOutMBps),
		AppEvictions:             sum.EvictionsByAppThreads,
		AppEvictionsFrom:         evictionsFrom,
		MinReadTicketsAvailable:  sum.MinReadTicketsAvailable,
		MinWriteTicketsAvailable: sum.MinWriteTicketsAvailable,
		MaxQueue:                 sum.MaxQueue,
	}
	ops := benchv1.OpCounterRates{
		Insert: f(sum.OpsPerSecond.Insert), Query: f(sum.OpsPerSecond.Query), Update: f(sum.OpsPerSecond.Update),
		Delete: f(sum.OpsPerSecond.Delete), Getmore: f(sum.OpsPerSecond.Getmore), Command: f(sum.OpsPerSecond.Command),
	}
	if ops != (benchv1.OpCounterRates{}) {
		out.OpsPerSecond = &ops
	}
	if bad {
		return benchv1.ServerSummary{}, errors.New("a value is not a finite number")
	}
	return out, nil
}

// collectionSummary is the status entry of the collection statistics.
func collectionSummary(st *telemetry.CollectionStats, maxShards int) (*benchv1.CollectionSummary, error) {
	if len(st.Shards) > maxShards {
		return nil, fmt.Errorf("%d shards reported", len(st.Shards))
	}
	if len(st.IndexSizes) > maxIndexes {
		return nil, fmt.Errorf("%d indexes reported, MongoDB allows %d", len(st.IndexSizes), maxIndexes)
	}
	out := &benchv1.CollectionSummary{
		Count: st.Count, Size: st.Size, StorageSize: st.StorageSize, TotalIndexSize: st.TotalIndexSize,
	}
	for name, size := range st.IndexSizes {
		if name == "" || len(name) > maxTelemetryText {
			return nil, fmt.Errorf("index name %.64q is empty or too long", name)
		}
		if out.IndexSizes == nil {
			out.IndexSizes = make(map[string]int64, len(st.IndexSizes))
		}
		out.IndexSizes[name] = size
	}
	seen := map[string]bool{}
	for _, sh := range st.Shards {
		if sh.Shard == "" || len(sh.Shard) > maxTelemetryText || seen[sh.Shard] {
			return nil, fmt.Errorf("shard %.64q is empty, too long or reported twice", sh.Shard)
		}
		seen[sh.Shard] = true
		out.Shards = append(out.Shards, benchv1.ShardCollectionSummary{
			Shard: sh.Shard, Count: sh.Count, Size: sh.Size, StorageSize: sh.StorageSize, TotalIndexSize: sh.TotalIndexSize,
		})
	}
	return out, nil
}

func clamp32(n int) int32 { return int32(min(max(n, 0), math.MaxInt32)) }

func ptrTo[T any](v T) *T { return &v }
