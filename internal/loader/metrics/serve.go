package metrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/mongobench/mongobench/internal/contract"
)

// Server serves an Exporter on contract.MetricsPath.
type Server struct {
	srv  *http.Server
	addr net.Addr
	done chan error

	mu sync.Mutex
	// scrapes are the start times of the last two scrapes answered,
	// newest last.
	scrapes []time.Time
	// scraped is closed and replaced at every scrape.
	scraped chan struct{}
}

// Serve listens on addr (host:port; ":0" picks a port) and serves e in the
// Prometheus text format, OpenMetrics or protobuf (native histograms), as
// the scraper asks. A listen error is returned at once: a port taken is a
// configuration mistake to report before any work starts.
func Serve(addr string, e *Exporter) (*Server, error) {
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(e); err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics: listen on %s: %w", addr, err)
	}
	s := &Server{addr: ln.Addr(), done: make(chan error, 1), scraped: make(chan struct{})}
	h := promhttp.HandlerFor(reg, promhttp.HandlerOpts{
		EnableOpenMetrics: true,
		// A scrape that fails is reported in the response, never a
		// reason to stop the benchmark.
		ErrorHandling: promhttp.ContinueOnError,
	})
	mux := http.NewServeMux()
	mux.Handle(contract.MetricsPath, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		h.ServeHTTP(w, r)
		s.noteScrape(start)
	}))
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { s.done <- s.srv.Serve(ln) }()
	return s, nil
}

// noteScrape records a scrape, answered, that started at t.
func (s *Server) noteScrape(t time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scrapes = append(s.scrapes, t)
	if len(s.scrapes) > 2 {
		s.scrapes = s.scrapes[len(s.scrapes)-2:]
	}
	close(s.scraped)
	s.scraped = make(chan struct{})
}

// Linger waits, once the loader has finished, for the next scrape, so that
// the final values (finished, lost inserts, the last second's operations)
// reach a scraper that is watching: a loader exits a second or two after
// its last operation, well inside a 15 s scrape interval. It waits only
// when something has scraped, at most one and a half of the last interval
// between scrapes (longest when only one was seen), and never longer than
// longest or past ctx.
func (s *Server) Linger(ctx context.Context, longest time.Duration) {
	s.mu.Lock()
	next := s.scraped
	var wait time.Duration
	switch len(s.scrapes) {
	case 0:
		s.mu.Unlock()
		return
	case 1:
		wait = longest
	default:
		wait = min(s.scrapes[1].Sub(s.scrapes[0])*3/2, longest)
	}
	s.mu.Unlock()
	begin := time.Now()
	t := time.NewTimer(wait)
	defer t.Stop()
	for {
		select {
		case <-next:
		case <-t.C:
			return
		case <-ctx.Done():
			return
		}
		s.mu.Lock()
		// A scrape that began before the loader finished may lack the
		// final values: wait for one that began after.
		last := s.scrapes[len(s.scrapes)-1]
		next = s.scraped
		s.mu.Unlock()
		if !last.Before(begin) {
			return
		}
	}
}

// Addr is the address the server listens on.
func (s *Server) Addr() net.Addr { return s.addr }

// Close stops serving, letting a scrape in progress finish within timeout.
func (s *Server) Close(timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if serr := <-s.done; serr != nil && !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	return err
}
