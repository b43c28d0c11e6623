package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/loader"
	"github.com/mongobench/mongobench/internal/version"
)

func main() {
	loader.ConfigureGC(os.Getenv)
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	// The first SIGTERM or SIGINT stops the run gracefully (the partial
	// result is still written); a second one kills the process, as the
	// handler is removed after the first. Except for freeze: killed
	// between its SIGSTOP and its SIGCONT, it would leave mongod stopped,
	// so it keeps catching them (and continues the process at the first).
	freeze := len(os.Args) > 1 && os.Args[1] == contract.CommandFreeze
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		s := <-sigs
		if !freeze {
			signal.Reset(syscall.SIGTERM, syscall.SIGINT)
		}
		cancel(loader.SignalError{Signal: s})
	}()
	os.Exit(loader.Main(ctx, os.Args[1:], loader.Env{
		Stdout: os.Stdout,
		Stderr: os.Stderr,
		Getenv: os.Getenv,
		// Set at build time, like the manager's: -ldflags
		// "-X github.com/mongobench/mongobench/internal/version.Version=v1.2.3".
		Version: version.Version,
	}))
}
