package mongoadmin

import (
	"context"
	"fmt"
	"log/slog"
	"time"
)

// Defaults of Options.
const (
	DefaultTimeout      = 5 * time.Minute
	DefaultCallTimeout  = 30 * time.Second
	DefaultPollInterval = 250 * time.Millisecond
	// maxBackoff caps the wait between retries of a transient error.
	maxBackoff = 2 * time.Second
)

// Options tune Bootstrap and ApplyValidator; the zero value is ready to use.
type Options struct {
	// Timeout bounds the whole call, waits and retries included
	// (DefaultTimeout).
	Timeout time.Duration
	// CallTimeout bounds every single command, so a server that accepts a
	// connection and never answers cannot hang the Job (DefaultCallTimeout).
	CallTimeout time.Duration
	// PollInterval is the wait between polls of a state that is not there
	// yet (a member becoming primary), and the first backoff after a
	// transient error (DefaultPollInterval).
	PollInterval time.Duration
	// Logger receives one line per step (nil: no logging).
	Logger *slog.Logger
	// Dial opens a connection to one server (nil: DialDriver). Tests pass a
	// fake; a caller may wrap DialDriver to add credentials or TLS.
	Dial Dialer

	// clock is the time source of waits and of the deadline; tests replace
	// it so retries take no real time.
	clock clock
}

func (o Options) withDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.CallTimeout <= 0 {
		o.CallTimeout = DefaultCallTimeout
	}
	if o.PollInterval <= 0 {
		o.PollInterval = DefaultPollInterval
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Dial == nil {
		o.Dial = DialDriver
	}
	if o.clock == nil {
		o.clock = realClock{}
	}
	return o
}

// clock is time as the retry loop sees it.
type clock interface {
	Now() time.Time
	// Sleep waits for d, or until ctx is done (then it returns ctx.Err()).
	Sleep(ctx context.Context, d time.Duration) error
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("wait interrupted: %w", ctx.Err())
	}
}
