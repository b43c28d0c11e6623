package loader

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/loader/k8sresult"
)

// barrierPoll is how often a ready loader asks for the start ConfigMap; a
// random tenth is added so that 64 loaders do not ask in step. The
// controller sets the start instant further ahead than this (its
// --start-lead), so every loader reads it in time.
const barrierPoll = 250 * time.Millisecond

// startBarrier is one loader's side of a phase's start barrier
// (contract.FlagStartBarrier): report ready, wait for the start instant.
type startBarrier struct {
	sink  *configMapSink // the result's destination: its writer, namespace, owner and labels
	job   string
	index int
	poll  time.Duration
}

// newStartBarrier checks --start-barrier against the result flags.
func newStartBarrier(job string, sink *configMapSink, index int) (*startBarrier, error) {
	if job == "" {
		return nil, nil
	}
	if sink == nil {
		return nil, usagef("--%s needs --%s: the ready ConfigMap is written beside the result", contract.FlagStartBarrier, contract.FlagResultConfigMap)
	}
	for _, name := range []string{contract.ReadyConfigMapName(job, index), contract.StartConfigMapName(job)} {
		if err := k8sresult.ValidateName(name); err != nil {
			return nil, usagef("--%s: %w", contract.FlagStartBarrier, err)
		}
	}
	return &startBarrier{sink: sink, job: job, index: index, poll: barrierPoll}, nil
}

// wait reports this loader ready (with the connections it opened) and
// returns the start instant once the controller set it. It waits until ctx
// ends: the phase's Job deadline and the controller's barrier timeout bound
// a barrier that never opens.
func (b *startBarrier) wait(ctx context.Context, connections int, connect time.Duration, log io.Writer) (time.Time, error) {
	cm := b.sink.cm
	cm.Name = contract.ReadyConfigMapName(b.job, b.index)
	cm.Data = map[string]string{
		contract.ReadyAtKey:            time.Now().UTC().Format(time.RFC3339Nano),
		contract.ReadyConnectionsKey:   strconv.Itoa(connections),
		contract.ReadyConnectMillisKey: strconv.FormatInt(connect.Milliseconds(), 10),
	}
	wctx, cancel := context.WithTimeout(ctx, resultWriteTimeout)
	err := b.sink.writer.Create(wctx, &cm)
	cancel()
	if err != nil {
		return time.Time{}, fmt.Errorf("start barrier: report ready: %w", err)
	}
	_, _ = fmt.Fprintf(log, "loader %d ready; waiting for the start of every loader (ConfigMap %s)\n", b.index, contract.StartConfigMapName(b.job))
	name := contract.StartConfigMapName(b.job)
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return time.Time{}, fmt.Errorf("start barrier: %w", context.Cause(ctx))
		case <-timer.C:
		}
		data, err := b.sink.writer.Get(ctx, cm.Namespace, name)
		switch {
		case err == nil:
			at, perr := time.Parse(time.RFC3339Nano, data[contract.StartAtKey])
			if perr != nil {
				return time.Time{}, fmt.Errorf("start barrier: ConfigMap %s: %s %q: %w", name, contract.StartAtKey, data[contract.StartAtKey], perr)
			}
			return at, nil
		case !errors.Is(err, k8sresult.ErrNotFound):
			// A passing API error: log it and ask again.
			_, _ = fmt.Fprintf(log, "start barrier: %v\n", err)
		}
		timer.Reset(b.poll + rand.N(b.poll/10+1))
	}
}

// sleepUntil waits until the wall clock reaches t (the controller's
// instant; the nodes' clocks are NTP-synchronised), or ctx ends.
func sleepUntil(ctx context.Context, t time.Time) error {
	d := time.Until(t)
	if d <= 0 {
		return nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return fmt.Errorf("start barrier: %w", context.Cause(ctx))
	case <-timer.C:
		return nil
	}
}
