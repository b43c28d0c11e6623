package loader

import (
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"net/url"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/mongotls"
	"github.com/mongobench/mongobench/internal/telemetry"
)

// telemetryTimeout bounds each call of the sampler (serverStatus,
// collection statistics) and its connections: short, so that a process
// that does not answer costs a sample, never the phase.
const telemetryTimeout = 3 * time.Second

// telemetryFlags are the server telemetry flags of load and run (the Jobs'
// side of internal/contract), and --telemetry-result.
type telemetryFlags struct {
	processes  stringList
	interval   time.Duration
	collection string
	every      time.Duration
	result     string
	external   bool
}

func (f *telemetryFlags) register(fs *flag.FlagSet) {
	fs.Var(&f.processes, contract.FlagTelemetryProcess,
		"sample serverStatus of this MongoDB process, alone (directConnection): `ROLE,POD,HOST:PORT`; repeatable. "+
			"Only loader 0 samples; without any, no telemetry")
	fs.DurationVar(&f.interval, contract.FlagTelemetryInterval, telemetry.DefaultInterval, "telemetry sampling `interval`")
	fs.StringVar(&f.collection, contract.FlagTelemetryCollection, "",
		"take the storage statistics of this collection at the end of the phase: `HOST:PORT,DATABASE,COLLECTION` "+
			"(mongos or the mongod)")
	fs.DurationVar(&f.every, contract.FlagTelemetryCollectionEvery, 0,
		"also take them every `interval` during the phase (0: only at the end)")
	fs.BoolVar(&f.external, contract.FlagTelemetryExternal, false,
		"sample every process of an external cluster, discovered through "+contract.EnvMonitorURI+" (else "+contract.EnvURI+
			"): a replica set's members, or mongos, the shards' members and the config servers, each alone")
	fs.StringVar(&f.result, "telemetry-result", "",
		"write loader 0's telemetry report (gzip JSON, as the result ConfigMap's "+contract.TelemetryKey+") to `FILE`")
}

// Telemetry is the server telemetry a phase's loaders are asked to take,
// parsed from the command line. Only loader 0 samples (Command.Telemetry).
type Telemetry struct {
	Interval  time.Duration
	Processes []contract.TelemetryProcess
	// Collection is nil when no collection statistics are asked for.
	Collection *contract.TelemetryCollection
	// CollectionEvery is 0 when statistics are taken only at the end.
	CollectionEvery time.Duration

	// credential is the telemetry user's, from the environment
	// (contract.EnvMonitorUsername, contract.EnvMonitorPassword); nil
	// without.
	credential *options.Credential
	// externalURI is the connection string the processes of an external
	// cluster are discovered and sampled with (contract.EnvMonitorURI,
	// else contract.EnvURI); "" for a topology mongobench deployed.
	externalURI string
	// tls is merged into externalURI's TLS settings (the phase's TLS
	// files), set when the phase runs.
	tls *tls.Config
}

// parse checks the flags, and reads the telemetry user from the
// environment; nil when no process is given (telemetry off).
func (f *telemetryFlags) parse(getenv func(string) string) (*Telemetry, error) {
	if f.external {
		return f.parseExternal(getenv)
	}
	if len(f.processes) == 0 {
		if f.collection != "" || f.every != 0 {
			return nil, usagef("--%s and --%s need --%s", contract.FlagTelemetryCollection, contract.FlagTelemetryCollectionEvery,
				contract.FlagTelemetryProcess)
		}
		return nil, nil
	}
	if f.interval < 10*time.Millisecond {
		return nil, usagef("--%s %s: must be at least 10ms", contract.FlagTelemetryInterval, f.interval)
	}
	if f.every < 0 {
		return nil, usagef("--%s %s: must not be negative", contract.FlagTelemetryCollectionEvery, f.every)
	}
	t := &Telemetry{Interval: f.interval, CollectionEvery: f.every}
	var err error
	if t.credential, err = monitorCredential(getenv); err != nil {
		return nil, err
	}
	for _, s := range f.processes {
		p, err := contract.DecodeTelemetryProcess(s)
		if err != nil {
			return nil, usagef("--%s: %w", contract.FlagTelemetryProcess, err)
		}
		t.Processes = append(t.Processes, p)
	}
	if f.collection != "" {
		c, err := contract.DecodeTelemetryCollection(f.collection)
		if err != nil {
			return nil, usagef("--%s: %w", contract.FlagTelemetryCollection, err)
		}
		t.Collection = &c
	} else if f.every != 0 {
		return nil, usagef("--%s needs --%s", contract.FlagTelemetryCollectionEvery, contract.FlagTelemetryCollection)
	}
	return t, nil
}

// parseExternal checks --telemetry-external: the processes come from the
// cluster, so --telemetry-process must not be given, and the connection
// string from the environment.
func (f *telemetryFlags) parseExternal(getenv func(string) string) (*Telemetry, error) {
	if len(f.processes) > 0 {
		return nil, usagef("--%s and --%s exclude each other: an external cluster's processes are discovered",
			contract.FlagTelemetryExternal, contract.FlagTelemetryProcess)
	}
	if f.collection != "" || f.every != 0 {
		return nil, usagef("--%s and --%s are not for --%s", contract.FlagTelemetryCollection, contract.FlagTelemetryCollectionEvery,
			contract.FlagTelemetryExternal)
	}
	if f.interval < 10*time.Millisecond {
		return nil, usagef("--%s %s: must be at least 10ms", contract.FlagTelemetryInterval, f.interval)
	}
	uri := strings.TrimSpace(getenv(contract.EnvMonitorURI))
	if uri == "" {
		uri = strings.TrimSpace(getenv(contract.EnvURI))
	}
	if uri == "" {
		return nil, usagef("--%s needs %s or %s", contract.FlagTelemetryExternal, contract.EnvMonitorURI, contract.EnvURI)
	}
	return &Telemetry{Interval: f.interval, externalURI: uri}, nil
}

// config is the Sampler's configuration: a client of its own per process,
// connected to that process alone, with short timeouts.
func (t *Telemetry) config() telemetry.Config {
	cfg := telemetry.Config{Interval: t.Interval, Timeout: telemetryTimeout, Credential: t.credential}
	for _, p := range t.Processes {
		cfg.Processes = append(cfg.Processes, telemetry.Process{Role: p.Role, Pod: p.Pod, URI: directURI(p.Address, "")})
	}
	if c := t.Collection; c != nil {
		cfg.Collection = &telemetry.CollectionTarget{URI: directURI(c.Address, c.Database), Database: c.Database,
			Collection: c.Collection, Every: t.CollectionEvery}
	}
	return cfg
}

// directURI connects to the process at addr alone, never discovering the
// rest of its replica set or cluster, with one small pool and timeouts
// that keep an unreachable process from holding up the phase's end.
func directURI(addr, db string) string {
	ms := fmt.Sprint(telemetryTimeout.Milliseconds())
	q := url.Values{}
	q.Set("directConnection", "true")
	q.Set("appName", "mongobench-telemetry")
	q.Set("maxPoolSize", "2")
	q.Set("connectTimeoutMS", ms)
	q.Set("serverSelectionTimeoutMS", ms)
	q.Set("socketTimeoutMS", ms)
	// Explicit, as in every URL mongobench builds: the driver's default is
	// true (go.mongodb.org/mongo-driver/v2 mongo/client.go). The sampler
	// only reads, so it changes nothing on the wire.
	q.Set("retryWrites", "false")
	return "mongodb://" + addr + "/" + db + "?" + q.Encode()
}

// startTelemetry starts sampling when this loader samples (index 0 and
// telemetry asked for); nil otherwise.
func startTelemetry(ctx context.Context, t *Telemetry, index int, env Env, live *liveMetrics) *telemetry.Sampler {
	if t == nil || index != 0 {
		return nil
	}
	cfg := t.config()
	live.sampled(&cfg)
	if t.externalURI != "" {
		cfg.Processes = externalProcesses(ctx, t, env)
	}
	return telemetry.Start(ctx, cfg)
}

// externalProcesses discovers an external cluster's processes through
// the monitor string and returns one direct client configuration per
// process. Discovery never fails the phase: when it cannot run (a
// credential the cluster refuses, an unreachable entry point), the
// string's own hosts are sampled, each then recording why it is
// unavailable.
func externalProcesses(ctx context.Context, t *Telemetry, env Env) []telemetry.Process {
	base := options.Client().ApplyURI(t.externalURI)
	mongotls.Apply(base, t.tls)
	hosts := []telemetry.DiscoveredHost{}
	client, err := mongo.Connect(options.Client().ApplyURI(t.externalURI).SetAppName("mongobench-telemetry").
		SetServerSelectionTimeout(telemetryTimeout).SetConnectTimeout(telemetryTimeout).SetTLSConfig(base.TLSConfig))
	if err == nil {
		var d telemetry.Discovery
		d, err = telemetry.Discover(ctx, telemetry.ClientRunner(client), base.Hosts, telemetryTimeout)
		hosts = d.Hosts
		for _, u := range d.Unavailable {
			warn(env, "telemetry: "+u)
		}
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), telemetryTimeout)
		_ = client.Disconnect(dctx)
		cancel()
	}
	if err != nil {
		// The driver's errors name hosts, never the string's user
		// information (see mongoadmin.scrubUserInfo for its parse errors).
		warn(env, fmt.Sprintf("telemetry: cannot discover the cluster's processes (%v): sampling the connection string's hosts", err))
		hosts = hosts[:0]
		for _, h := range base.Hosts {
			hosts = append(hosts, telemetry.DiscoveredHost{Role: telemetry.RoleStandalone, Host: h})
		}
	}
	procs := make([]telemetry.Process, 0, len(hosts))
	for _, h := range hosts {
		procs = append(procs, telemetry.Process{Role: h.Role, Pod: h.Host, Options: telemetry.DirectOptions(base, h.Host, telemetryTimeout)})
	}
	_, _ = fmt.Fprintf(env.Stderr, "telemetry: %d processes of the external cluster\n", len(procs))
	return procs
}

// stopTelemetry stops the sampler and encodes its payload within
// contract.MaxTelemetryBytes. Telemetry never fails the phase: what goes
// wrong is logged, and the payload is then left out (nil).
func stopTelemetry(s *telemetry.Sampler, env Env) []byte {
	if s == nil {
		return nil
	}
	r := s.Stop()
	samples, errs := 0, 0
	for i := range r.Processes {
		p := &r.Processes[i]
		samples += p.Series.Samples()
		errs += p.Errors
		if p.Errors > 0 {
			warn(env, fmt.Sprintf("telemetry: %d failed samples of %s %s; last: %s", p.Errors, p.Role, p.Pod, p.LastError))
		}
	}
	if c := r.Collection; c != nil && c.Errors > 0 {
		warn(env, fmt.Sprintf("telemetry: %d failed collection statistics; last: %s", c.Errors, c.LastError))
	}
	b, trimmed, err := telemetry.EncodePayload(r, contract.MaxTelemetryBytes)
	if err != nil {
		warn(env, "telemetry left out: "+err.Error())
		return nil
	}
	if trimmed.Growth || trimmed.Halvings > 0 {
		warn(env, fmt.Sprintf("telemetry trimmed to %d bytes: collection growth dropped %t, series halved %d times",
			len(b), trimmed.Growth, trimmed.Halvings))
	}
	_, _ = fmt.Fprintf(env.Stderr, "telemetry: %d processes, %d samples (%d failed), %d bytes\n", len(r.Processes), samples, errs, len(b))
	return b
}
