package loader

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/loader/k8sresult"
)

// DefaultTerminationLog is where Kubernetes reads a container's termination
// message from (terminationMessagePath's default).
const DefaultTerminationLog = "/dev/termination-log"

// maxTerminationMessage is the size Kubernetes keeps of a termination
// message.
const maxTerminationMessage = contract.MaxTerminationMessage

// Env is what Main needs from its process.
type Env struct {
	Stdout, Stderr io.Writer
	// Getenv reads the environment (os.Getenv).
	Getenv func(string) string
	// Version is printed by `loader version` and in the log.
	Version string
	// NewResultWriter returns the Kubernetes client that creates result
	// ConfigMaps; nil means k8sresult.InCluster (tests substitute one
	// talking to a test API server).
	NewResultWriter func() (*k8sresult.Writer, error)
}

const topUsage = `usage: loader <command> [flags]

Commands:
  load       YCSB's load phase against MongoDB (bin/ycsb load mongodb)
  run        YCSB's run (transaction) phase against MongoDB (bin/ycsb run mongodb)
  grow       a Grow phase: grow a collection checkpoint by checkpoint, with queries at each
  bootstrap  make a standalone or sharded topology ready (replica sets, shards, collection)
  collmod    apply a validator to the benchmark collection
  dropdatabase
             drop an external cluster's run database, if it holds the run's owner mark
  freeze     stop a process (mongod) with SIGSTOP for a while, then continue it: the Pause disruption
  version    print the version

Run 'loader <command> -h' for a command's flags.
`

// Main runs the loader command line (without the program name) and returns
// the process's exit code. Fatal errors go to stderr and to the termination
// log (--termination-log, default /dev/termination-log; not written when
// unwritable), where Kubernetes picks them up as the container's
// termination message.
func Main(ctx context.Context, args []string, env Env) int {
	env = env.withDefaults()
	termLog := terminationLogArg(args)
	args = skipLeadingTerminationLog(args)
	if len(args) == 0 {
		_, _ = io.WriteString(env.Stderr, topUsage)
		return fatal(env, termLog, usagef("no command given"))
	}
	var err error
	switch cmd := args[0]; cmd {
	case "load", "run", "bootstrap", "collmod", contract.CommandGrow, contract.CommandDropDatabase, contract.CommandFreeze:
		var c *Command
		if c, err = Parse(args, env); err == nil {
			err = c.run(ctx, env)
		}
	case "version":
		_, _ = fmt.Fprintln(env.Stdout, versionString(env))
	case "help", "-h", "-help", "--help":
		_, _ = io.WriteString(env.Stdout, topUsage)
	default:
		_, _ = io.WriteString(env.Stderr, topUsage)
		err = usagef("unknown command %q", cmd)
	}
	if err == nil {
		return ExitOK
	}
	if errors.Is(err, flag.ErrHelp) {
		return ExitOK
	}
	return fatal(env, termLog, err)
}

// withDefaults fills in what a caller left unset: streams that discard, an
// empty environment.
func (env Env) withDefaults() Env {
	if env.Stdout == nil {
		env.Stdout = io.Discard
	}
	if env.Stderr == nil {
		env.Stderr = io.Discard
	}
	if env.Getenv == nil {
		env.Getenv = func(string) string { return "" }
	}
	return env
}

// Command is a parsed loader command line (load, run, grow, bootstrap,
// collmod, dropdatabase or freeze), checked as far as it can be before any
// work. Parse makes it; Main parses, then runs it.
type Command struct {
	// Name is the command: load, run, grow, bootstrap, collmod,
	// dropdatabase or freeze.
	Name string

	phase     *phaseCommand
	grow      *growCommand
	bootstrap *bootstrapArgs
	collMod   *collModArgs
	dropDB    *dropDatabaseArgs
	freeze    *freezeArgs
}

// Parse parses and checks a loader command line (without the program name,
// as Main takes it) exactly as Main does before it does any work: the
// flags; for load and run the properties, the loader's identity (-p
// loader.index, else JOB_COMPLETION_INDEX from env.Getenv) and the
// binding's configuration; for grow the same and the growth workload's
// (Grow); for bootstrap the topology and the Load phase's
// keys; for collmod the validator; for freeze the process name and the
// duration. It connects to nothing, creates no file, reads no process and
// makes no Kubernetes client. As in Main, flag errors, -h and the property
// warnings go to env.Stderr. version and help are not parsed here.
func Parse(args []string, env Env) (*Command, error) {
	env = env.withDefaults()
	termLog := terminationLogArg(args)
	args = skipLeadingTerminationLog(args)
	if len(args) == 0 {
		return nil, usagef("no command given")
	}
	c := &Command{Name: args[0]}
	var err error
	switch rest := args[1:]; c.Name {
	case "load":
		c.phase, err = parsePhaseCommand(phaseLoad, rest, env)
	case "run":
		c.phase, err = parsePhaseCommand(phaseRun, rest, env)
	case contract.CommandGrow:
		c.grow, err = parseGrowCommand(rest, env)
	case "bootstrap":
		c.bootstrap, err = parseBootstrapArgs(rest, env)
	case "collmod":
		c.collMod, err = parseCollModArgs(rest, env)
	case contract.CommandDropDatabase:
		c.dropDB, err = parseDropDatabaseArgs(rest, env)
	case contract.CommandFreeze:
		c.freeze, err = parseFreezeArgs(rest, termLog, env)
	default:
		err = usagef("unknown command %q", c.Name)
	}
	if err != nil {
		return nil, err
	}
	return c, nil
}

// LoaderIndex is the loader's index among loader.count for load and run
// (-p loader.index, else JOB_COMPLETION_INDEX, else 0); 0 for the other
// commands (a Grow phase has one loader).
func (c *Command) LoaderIndex() int {
	if c.phase != nil {
		return c.phase.prepared.index
	}
	return 0
}

// ResultConfigMap is the result ConfigMap the command would create: the
// name (--result-configmap and the loader index), labels (--result-labels
// and the loader index) and owner (--result-owner), checked as before a
// run; nil when it creates none. Its namespace, which the loader finds in
// the pod, is left empty, and it holds no data yet.
func (c *Command) ResultConfigMap() (*k8sresult.ConfigMap, error) {
	switch {
	case c.phase != nil:
		return c.phase.flags.sink.configMapFor(c.phase.prepared.index)
	case c.grow != nil:
		return c.grow.flags.sink.configMapFor(0)
	case c.bootstrap != nil:
		return c.bootstrap.sink.configMapFor(0)
	}
	return nil, nil
}

// run does the parsed command's work.
func (c *Command) run(ctx context.Context, env Env) error {
	switch {
	case c.phase != nil:
		return c.phase.run(ctx, env)
	case c.grow != nil:
		return c.grow.run(ctx, env)
	case c.bootstrap != nil:
		return runBootstrap(ctx, c.bootstrap, env)
	case c.collMod != nil:
		return runCollMod(ctx, c.collMod, env)
	case c.dropDB != nil:
		return runDropDatabase(ctx, c.dropDB, env)
	case c.freeze != nil:
		return runFreeze(ctx, c.freeze, env)
	}
	return usagef("unknown command %q", c.Name)
}

func versionString(env Env) string {
	v := env.Version
	if v == "" {
		v = "dev"
	}
	return "mongobench loader " + v
}

// fatal reports err on stderr and in the termination log and returns its
// exit code. The termination message is err's text, unless err carries
// one of its own (a freeze's report, withTerminationMessage).
func fatal(env Env, termLog string, err error) int {
	msg := err.Error()
	_, _ = fmt.Fprintf(env.Stderr, "loader: %s\n", msg)
	var tm withTerminationMessage
	if errors.As(err, &tm) {
		msg = tm.msg
	}
	writeTerminationLog(termLog, msg)
	return exitCodeOf(err)
}

// warn prints a warning that does not stop the command.
func warn(env Env, msg string) {
	_, _ = fmt.Fprintf(env.Stderr, "loader: warning: %s\n", msg)
}

// terminationLogArg finds --termination-log in the arguments before they are
// parsed, so that even a usage error reaches the right file.
func terminationLogArg(args []string) string {
	path := DefaultTerminationLog
	for i, a := range args {
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || name != "termination-log" {
			continue
		}
		if hasValue {
			path = value
		} else if i+1 < len(args) {
			path = args[i+1]
		}
	}
	return path
}

// skipLeadingTerminationLog drops a --termination-log given before the
// command (it is a flag of every command, and may also come first).
func skipLeadingTerminationLog(args []string) []string {
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		name, _, hasValue := strings.Cut(strings.TrimLeft(args[0], "-"), "=")
		if name != "termination-log" {
			break
		}
		if hasValue || len(args) == 1 {
			args = args[1:]
		} else {
			args = args[2:]
		}
	}
	return args
}

// writeTerminationLog writes msg, truncated to what Kubernetes keeps, to
// path. A missing or read-only path (running outside Kubernetes) is not an
// error worth reporting over the one being reported.
func writeTerminationLog(path, msg string) {
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if errors.Is(err, os.ErrNotExist) && path != DefaultTerminationLog {
		f, err = os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	}
	if err != nil {
		return
	}
	_, _ = io.WriteString(f, truncateMessage(msg, maxTerminationMessage))
	_ = f.Close()
}

// truncateMessage shortens msg to at most limit bytes by cutting out its
// middle: Go errors read "step: step: cause", so both the outer context and
// the root cause at the end are worth keeping. Cuts fall on UTF-8
// boundaries.
func truncateMessage(msg string, limit int) string {
	if len(msg) <= limit {
		return msg
	}
	const marker = " […] "
	room := limit - len(marker)
	head := room * 2 / 3
	tail := room - head
	for head > 0 && !isRuneStart(msg[head]) {
		head--
	}
	start := len(msg) - tail
	for start < len(msg) && !isRuneStart(msg[start]) {
		start++
	}
	return msg[:head] + marker + msg[start:]
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string { return strings.Join(*s, " ") }

func (s *stringList) Set(v string) error {
	*s = append(*s, v)
	return nil
}

// newFlagSet returns a flag set that reports errors instead of exiting and
// knows --termination-log (read by Main before parsing).
func newFlagSet(name, synopsis string, env Env) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	fs.String("termination-log", DefaultTerminationLog, "`file` receiving the message of a fatal error (Kubernetes' termination message)")
	fs.Usage = func() {
		_, _ = fmt.Fprintf(env.Stderr, "usage: loader %s %s\n\nFlags (one or two dashes):\n", name, synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args and rejects leftover arguments.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return flag.ErrHelp
		}
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	return nil
}

// flagsSet returns the names of the flags given on the command line.
func flagsSet(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}

// Telemetry is the server telemetry this loader takes: nil unless the
// command is load, run or grow, telemetry is asked for (--telemetry-process)
// and the loader's index is 0, the one loader of a phase that samples.
func (c *Command) Telemetry() *Telemetry {
	if c.grow != nil {
		return c.grow.telemetry
	}
	if c.phase == nil || c.phase.prepared.index != 0 {
		return nil
	}
	return c.phase.telemetry
}
