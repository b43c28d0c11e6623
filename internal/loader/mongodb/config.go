package mongodb

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/connstring"

	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/ycsb"
)

// Properties of the MongoDB binding and their defaults. Those the
// controller writes, mongodb.url and batchsize, are
// contract.PropMongoDBURL and contract.PropBatchSize. The first four below
// are YCSB's, like those two (mongodb/README.md, MongoDbClient.java,
// OptionsSupport.java); mongodb.operationtimeout is ours.
const (
	PropWriteConcern     = "mongodb.writeConcern"
	PropReadPreference   = "mongodb.readPreference"
	PropMaxConnections   = "mongodb.maxconnections"
	PropUpsert           = "mongodb.upsert"
	PropOperationTimeout = "mongodb.operationtimeout"
	// propWaitQueueMultiple is YCSB's mapping to the Java driver's
	// waitQueueMultiple, which the Go driver does not have.
	propWaitQueueMultiple = "mongodb.threadsAllowedToBlockForConnectionMultiplier"

	DefaultURL              = "mongodb://localhost:27017/ycsb?w=1"
	DefaultDatabase         = "ycsb"
	DefaultOperationTimeout = 30 * time.Second
)

// DefaultRetryWrites is the loader's retryWrites when mongodb.url does not
// set the option. The Go driver's own default is true, and it uses it only
// against replica sets and mongos (x/mongo/driver/operation.go:
// retryWritesSupported requires a session timeout and a server kind other
// than Standalone): every insert, insertMany and updateOne through mongos
// would carry lsid and txnNumber, and each shard would record it in
// config.transactions, while the same write to a standalone carries no
// txnNumber. False keeps both topologies doing the same work per write, as
// YCSB 0.17.0's binding did (Java driver 3.8.0, before retryable writes
// became the default).
const DefaultRetryWrites = false

// Config is the binding's configuration, read from YCSB properties.
type Config struct {
	// URL is mongodb.url with the legacy properties (mongodb.writeConcern,
	// mongodb.readPreference, mongodb.maxconnections) added as URL options
	// where the URL does not set them already, as YCSB's
	// OptionsSupport.updateUrl does.
	URL string
	// Database is the URL's database, or "ycsb" when the URL names none or
	// names admin (YCSB's rule).
	Database string
	// BatchSize > 1 buffers inserts per thread and writes them with
	// insertMany(ordered=false) when BatchSize are buffered, and in Cleanup.
	BatchSize int
	// Upsert inserts with replaceOne(upsert) (a batch: unordered bulkWrite of
	// upserting replaceOne models) so a load can run over existing data.
	Upsert bool
	// OperationTimeout bounds every driver call: an operation that takes
	// longer fails with ERROR instead of holding its thread.
	OperationTimeout time.Duration
	// Credential, when set, authenticates every connection (the driver's
	// SetAuth, never the URL, which the loader prints). It does not come
	// from the properties: the loader reads it from the environment
	// (contract.EnvUsername, contract.EnvPassword).
	Credential *options.Credential
	// URLFromEnvironment is set when URL is the connection string of an
	// external cluster, read from contract.EnvURI (ConfigFromURI): a
	// secret as a whole, of which messages and the log show only the hosts
	// (Shown).
	URLFromEnvironment bool
	// TLS, when set, is merged into the URL's TLS settings
	// (mongotls.Apply): the CA and client certificate files of an external
	// cluster's Secrets.
	TLS *tls.Config
	// Threads, when set, is the number of threads the pool serves:
	// NewClient keeps min(Threads, maxPoolSize) connections open
	// (minPoolSize) unless the URL sets minPoolSize, and HoldConnections
	// opens them before the clock starts.
	Threads int
	// Disruptions: the phase measures around disruptions, so the client
	// counts the threads' failed command attempts (the driver's retries)
	// and records the primaries its monitor sees (disruption.go). Off, the
	// driver has no monitor at all.
	Disruptions bool
}

// ConfigFromProperties reads the binding's properties. Unlike YCSB, which
// prints a warning and carries on, an unknown mongodb.writeConcern or
// mongodb.readPreference value is an error: a typo would otherwise change
// what is measured without anyone noticing.
func ConfigFromProperties(p *ycsb.Properties) (Config, error) {
	return configFrom(p, Config{URL: p.String(contract.PropMongoDBURL, DefaultURL)})
}

// ConfigFromURI reads the binding's properties as ConfigFromProperties
// does, with uri, the connection string of contract.EnvURI, in place of
// mongodb.url, which must then not be given: two connection strings would
// leave it to a rule which one is benchmarked. uri is never shown: Shown
// gives its hosts.
func ConfigFromURI(p *ycsb.Properties, uri string) (Config, error) {
	if p.Has(contract.PropMongoDBURL) {
		return Config{}, fmt.Errorf("%s and %s are both set: the connection string of an external cluster comes from %s only",
			contract.PropMongoDBURL, contract.EnvURI, contract.EnvURI)
	}
	return configFrom(p, Config{URL: uri, URLFromEnvironment: true})
}

// Shown is the connection string as messages and the log show it: with
// its password hidden, or, from the environment, its hosts only (for
// mongodb+srv://, the name looked up) and where it came from.
func (c Config) Shown() string { return shownURL(c.URL, c.URLFromEnvironment) }

func shownURL(u string, fromEnvironment bool) string {
	if fromEnvironment {
		return urlHosts(u) + " (" + contract.EnvURI + ")"
	}
	return redactURL(u)
}

// Source names where the connection string came from, for messages.
func (c Config) Source() string {
	if c.URLFromEnvironment {
		return contract.EnvURI
	}
	return contract.PropMongoDBURL
}

func configFrom(p *ycsb.Properties, c Config) (Config, error) {
	var errs []error
	var err error
	if c.BatchSize, err = p.Int(contract.PropBatchSize, 1); err != nil {
		errs = append(errs, err)
	} else if c.BatchSize < 1 {
		errs = append(errs, fmt.Errorf("%s: %d must be at least 1", contract.PropBatchSize, c.BatchSize))
	}
	if c.Upsert, err = p.Bool(PropUpsert, false); err != nil {
		errs = append(errs, err)
	}
	if c.OperationTimeout, err = parseTimeout(p.String(PropOperationTimeout, "")); err != nil {
		errs = append(errs, err)
	}
	if !strings.HasPrefix(c.URL, "mongodb://") && !strings.HasPrefix(c.URL, "mongodb+srv://") {
		// YCSB's check and message.
		shown := c.Shown()
		if c.URLFromEnvironment {
			shown = "(not shown)"
		}
		errs = append(errs, fmt.Errorf("%s: invalid URL %q: must be of the form "+
			"'mongodb://<host1>:<port1>,<host2>:<port2>/database?options' or 'mongodb+srv://<host>/database?options'",
			c.Source(), shown))
	}
	if len(errs) > 0 {
		return c, fmt.Errorf("mongodb properties: %w", errors.Join(errs...))
	}

	opts, err := legacyURLOptions(p)
	if err != nil {
		return c, fmt.Errorf("mongodb properties: %w", err)
	}
	external, err := externalURIOptions(p, c.URLFromEnvironment)
	if err != nil {
		return c, fmt.Errorf("mongodb properties: %w", err)
	}
	opts = append(external, opts...)
	present := urlOptionKeys(c.URL)
	for _, o := range opts {
		if !present[strings.ToLower(o.key)] {
			c.URL = addURLOption(c.URL, o.key, o.value)
			present[strings.ToLower(o.key)] = true
		}
	}
	if err := checkURL(c.URL, c.URLFromEnvironment); err != nil {
		return c, fmt.Errorf("%s: %w", c.Source(), err)
	}
	if c.Database, err = urlDatabase(c.URL, c.URLFromEnvironment); err != nil {
		return c, fmt.Errorf("%s: %w", c.Source(), err)
	}
	if c.Database == "" || c.Database == "admin" {
		c.Database = DefaultDatabase
	}
	if db := p.String(contract.PropExternalDatabase, ""); db != "" {
		if !c.URLFromEnvironment {
			return c, fmt.Errorf("mongodb properties: %s is for a connection string from %s, not %s",
				contract.PropExternalDatabase, contract.EnvURI, contract.PropMongoDBURL)
		}
		// The run's own database: the user's connection string names, if
		// anything, the database its user authenticates against.
		c.Database = db
	}
	return c, nil
}

// externalURIOptions are contract.PropExternalURIOptions: spec.driver's
// options (key=value joined by &) that the controller would have put on
// mongodb.url, added to the user's connection string where it does not set
// them already (the user's choice wins, as for the legacy properties).
func externalURIOptions(p *ycsb.Properties, fromEnvironment bool) ([]urlOption, error) {
	raw := p.String(contract.PropExternalURIOptions, "")
	if raw == "" {
		return nil, nil
	}
	if !fromEnvironment {
		return nil, fmt.Errorf("%s is for a connection string from %s, not %s",
			contract.PropExternalURIOptions, contract.EnvURI, contract.PropMongoDBURL)
	}
	var out []urlOption
	for _, kv := range strings.Split(raw, "&") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("%s: %q is not key=value", contract.PropExternalURIOptions, kv)
		}
		uv, err := url.QueryUnescape(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %q: %w", contract.PropExternalURIOptions, kv, err)
		}
		out = append(out, urlOption{key: k, value: uv})
	}
	return out, nil
}

// checkURL rejects, before anything connects, a connection string that the
// driver would reject when connecting (its own parser decides), and hosts
// without a name (":27017", which the driver accepts and dials as this
// machine). Messages show the URL with its password hidden, or only its
// hosts when it comes from the environment (and the driver's message with
// the user information hidden too).
func checkURL(u string, fromEnvironment bool) error {
	invalid := func(format string, args ...any) error {
		msg := hidePassword(fmt.Sprintf(format, args...), u)
		if fromEnvironment {
			msg = hideUser(msg, u)
		}
		return fmt.Errorf("invalid URL %q: %s", shownURL(u, fromEnvironment), msg)
	}
	// Hosts first: the driver's messages for them do not name the host.
	for _, h := range strings.Split(urlHosts(u), ",") {
		if err := checkHost(h); err != nil {
			return invalid("%v", err)
		}
	}
	_, err := connstring.ParseAndValidate(u)
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		// mongodb+srv: the hosts come from DNS, and a failed lookup is the
		// connection's failure (exit 1), not the command line's.
		return nil
	}
	if err != nil {
		return invalid("%v", err)
	}
	return nil
}

// checkHost checks one host of a connection string's host list: a name
// (or IP address, or a percent-encoded Unix socket path) and an optional
// port between 1 and 65535. Empty entries are the driver's to judge.
func checkHost(h string) error {
	if h == "" {
		return nil
	}
	host, err := url.QueryUnescape(h)
	if err != nil {
		return fmt.Errorf("host %q: %w", h, err)
	}
	if strings.HasSuffix(host, ".sock") {
		return nil
	}
	name, port, err := net.SplitHostPort(host)
	if err != nil {
		// No port: the whole entry is the name.
		name, port = host, ""
	}
	if name == "" {
		return fmt.Errorf("host %q has no name (localhost:27017 is this machine)", h)
	}
	if port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("host %q: port %q is not a number from 1 to 65535", h, port)
		}
	}
	return nil
}

// hidePassword replaces the connection string's password in msg, should a
// driver message ever quote it.
func hidePassword(msg, u string) string {
	pw := urlPassword(u)
	if pw == "" {
		return msg
	}
	msg = strings.ReplaceAll(msg, pw, "xxxxx")
	if unescaped, err := url.PathUnescape(pw); err == nil && unescaped != "" {
		msg = strings.ReplaceAll(msg, unescaped, "xxxxx")
	}
	return msg
}

// hideUser replaces the connection string's user name in msg.
func hideUser(msg, u string) string {
	i := strings.Index(u, "://")
	if i < 0 {
		return msg
	}
	rest := u[i+len("://"):]
	at := userInfoEnd(rest)
	if at < 0 {
		return msg
	}
	user, _, _ := strings.Cut(rest[:at], ":")
	if user == "" {
		return msg
	}
	msg = strings.ReplaceAll(msg, user, "xxxxx")
	if unescaped, err := url.PathUnescape(user); err == nil && unescaped != "" {
		msg = strings.ReplaceAll(msg, unescaped, "xxxxx")
	}
	return msg
}

// parseTimeout reads mongodb.operationtimeout: a Go duration ("500ms",
// "30s", "2m") or a plain number of seconds.
func parseTimeout(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return DefaultOperationTimeout, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		secs, ferr := strconv.ParseFloat(s, 64)
		if ferr != nil {
			return 0, fmt.Errorf("%s: %q is neither a duration (30s, 500ms) nor a number of seconds", PropOperationTimeout, s)
		}
		d = time.Duration(secs * float64(time.Second))
	}
	if d <= 0 {
		return 0, fmt.Errorf("%s: %q must be positive (a call without a deadline can hang a thread)", PropOperationTimeout, s)
	}
	return d, nil
}

type urlOption struct{ key, value string }

// legacyURLOptions maps YCSB's pre-URL properties to connection string
// options, with OptionsSupport.updateUrl's values.
func legacyURLOptions(p *ycsb.Properties) ([]urlOption, error) {
	var opts []urlOption
	if v, ok := p.Get(PropMaxConnections); ok {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%s: %q is not a connection count", PropMaxConnections, v)
		}
		opts = append(opts, urlOption{"maxPoolSize", strconv.Itoa(n)})
	}
	if v, ok := p.Get(PropWriteConcern); ok {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "errors_ignored", "unacknowledged":
			opts = append(opts, urlOption{"w", "0"})
		case "acknowledged":
			opts = append(opts, urlOption{"w", "1"})
		case "journaled":
			opts = append(opts, urlOption{"journal", "true"})
		case "replica_acknowledged":
			opts = append(opts, urlOption{"w", "2"})
		case "majority":
			opts = append(opts, urlOption{"w", "majority"})
		default:
			return nil, fmt.Errorf("%s: %q is not one of errors_ignored, unacknowledged, acknowledged, journaled, replica_acknowledged, majority",
				PropWriteConcern, v)
		}
	}
	if v, ok := p.Get(PropReadPreference); ok {
		modes := map[string]string{
			"primary":             "primary",
			"primary_preferred":   "primaryPreferred",
			"secondary":           "secondary",
			"secondary_preferred": "secondaryPreferred",
			"nearest":             "nearest",
		}
		mode, ok := modes[strings.ToLower(strings.TrimSpace(v))]
		if !ok {
			return nil, fmt.Errorf("%s: %q is not one of primary, primary_preferred, secondary, secondary_preferred, nearest",
				PropReadPreference, v)
		}
		opts = append(opts, urlOption{"readPreference", mode})
	}
	return opts, nil
}

// splitURL splits a connection string into "scheme://userinfo@hosts", the
// path (without its leading '/', possibly empty) and the options (after '?',
// possibly empty); hasQuery reports whether there is a '?'.
func splitURL(u string) (prefix, path, query string, hasQuery bool) {
	schemeEnd := strings.Index(u, "://") + len("://")
	rest := u[schemeEnd:]
	// Hosts and user info cannot contain '/' or '?' (they must be
	// percent-encoded there), so the first of them ends the host list.
	end := strings.IndexAny(rest, "/?")
	if end < 0 {
		return u, "", "", false
	}
	prefix = u[:schemeEnd+end]
	rest = strings.TrimPrefix(rest[end:], "/")
	path, query, hasQuery = strings.Cut(rest, "?")
	return prefix, path, query, hasQuery
}

// urlOptionKeys returns the lower-cased option names a connection string
// sets (option names are case-insensitive). "j" counts as "journal".
func urlOptionKeys(u string) map[string]bool {
	_, _, query, _ := splitURL(u)
	keys := map[string]bool{}
	for _, kv := range strings.FieldsFunc(query, func(r rune) bool { return r == '&' || r == ';' }) {
		k, _, _ := strings.Cut(kv, "=")
		k = strings.ToLower(k)
		if k == "j" {
			k = "journal"
		}
		keys[k] = true
	}
	return keys
}

// addURLOption appends key=value to the connection string's options.
func addURLOption(u, key, value string) string {
	prefix, path, query, hasQuery := splitURL(u)
	opt := key + "=" + url.QueryEscape(value)
	if hasQuery && query != "" {
		return prefix + "/" + path + "?" + query + "&" + opt
	}
	return prefix + "/" + path + "?" + opt
}

// urlDatabase returns the database named in the connection string's path.
func urlDatabase(u string, fromEnvironment bool) (string, error) {
	_, path, _, _ := splitURL(u)
	db, err := url.PathUnescape(path)
	if err != nil {
		return "", fmt.Errorf("database name in %q: %w", shownURL(u, fromEnvironment), err)
	}
	return db, nil
}

// redactURL hides the password of a connection string, for messages.
func redactURL(u string) string {
	start, end, ok := passwordSpan(u)
	if !ok {
		return u
	}
	return u[:start] + "xxxxx" + u[end:]
}

// urlPassword returns the connection string's password as written (still
// percent-encoded), or "".
func urlPassword(u string) string {
	start, end, ok := passwordSpan(u)
	if !ok {
		return ""
	}
	return u[start:end]
}

// passwordSpan locates the password in "scheme://user:password@hosts/...".
func passwordSpan(u string) (start, end int, ok bool) {
	schemeEnd := strings.Index(u, "://")
	if schemeEnd < 0 {
		return 0, 0, false
	}
	schemeEnd += len("://")
	rest := u[schemeEnd:]
	at := userInfoEnd(rest)
	if at < 0 {
		return 0, 0, false
	}
	colon := strings.Index(rest[:at], ":")
	if colon < 0 {
		return 0, 0, false
	}
	return schemeEnd + colon + 1, schemeEnd + at, true
}

// userInfoEnd returns the index of the '@' that ends the user info of a
// connection string without its scheme, or -1. The user info ends at the
// first '@', as the driver reads it, or at a later '@' before the path: a
// malformed password (with an unescaped '@', '/' or '?') then counts as
// user info whole, so that it is hidden whole.
func userInfoEnd(rest string) int {
	first := strings.Index(rest, "@")
	if first < 0 {
		return -1
	}
	end := len(rest)
	if i := strings.IndexAny(rest[first:], "/?"); i >= 0 {
		end = first + i
	}
	return strings.LastIndex(rest[:end], "@")
}

// urlHosts returns the host list of a connection string as written
// ("h1:27017,h2:27017"; for mongodb+srv, the name to look up).
func urlHosts(u string) string {
	i := strings.Index(u, "://")
	if i < 0 {
		return ""
	}
	rest := u[i+len("://"):]
	rest = rest[userInfoEnd(rest)+1:]
	if end := strings.IndexAny(rest, "/?"); end >= 0 {
		rest = rest[:end]
	}
	return rest
}
