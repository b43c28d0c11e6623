package metrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
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
	mux := http.NewServeMux()
	mux.Handle(contract.MetricsPath, promhttp.HandlerFor(reg, promhttp.HandlerOpts{
		EnableOpenMetrics: true,
		// A scrape that fails is reported in the response, never a
		// reason to stop the benchmark.
		ErrorHandling: promhttp.ContinueOnError,
	}))
	s := &Server{
		srv:  &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second},
		addr: ln.Addr(),
		done: make(chan error, 1),
	}
	go func() { s.done <- s.srv.Serve(ln) }()
	return s, nil
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
