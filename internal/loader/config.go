package loader

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/mongobench/mongobench/internal/ycsb"
)

// Properties of the MongoDB binding and their defaults. The first six are
// YCSB's (mongodb/README.md, MongoDbClient.java, OptionsSupport.java);
// mongodb.operationtimeout is ours.
const (
	PropURL              = "mongodb.url"
	PropWriteConcern     = "mongodb.writeConcern"
	PropReadPreference   = "mongodb.readPreference"
	PropMaxConnections   = "mongodb.maxconnections"
	PropBatchSize        = "batchsize"
	PropUpsert           = "mongodb.upsert"
	PropOperationTimeout = "mongodb.operationtimeout"
	// propWaitQueueMultiple is YCSB's mapping to the Java driver's
	// waitQueueMultiple, which the Go driver does not have.
	propWaitQueueMultiple = "mongodb.threadsAllowedToBlockForConnectionMultiplier"

	DefaultURL              = "mongodb://localhost:27017/ycsb?w=1"
	DefaultDatabase         = "ycsb"
	DefaultOperationTimeout = 30 * time.Second
)

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
	// Warnings are properties that were accepted but have no effect.
	Warnings []string
}

// ConfigFromProperties reads the binding's properties. Unlike YCSB, which
// prints a warning and carries on, an unknown mongodb.writeConcern or
// mongodb.readPreference value is an error: a typo would otherwise change
// what is measured without anyone noticing.
func ConfigFromProperties(p *ycsb.Properties) (Config, error) {
	c := Config{URL: p.String(PropURL, DefaultURL)}
	var errs []error
	var err error
	if c.BatchSize, err = p.Int(PropBatchSize, 1); err != nil {
		errs = append(errs, err)
	} else if c.BatchSize < 1 {
		errs = append(errs, fmt.Errorf("%s: %d must be at least 1", PropBatchSize, c.BatchSize))
	}
	if c.Upsert, err = p.Bool(PropUpsert, false); err != nil {
		errs = append(errs, err)
	}
	if c.OperationTimeout, err = parseTimeout(p.String(PropOperationTimeout, "")); err != nil {
		errs = append(errs, err)
	}
	if !strings.HasPrefix(c.URL, "mongodb://") && !strings.HasPrefix(c.URL, "mongodb+srv://") {
		// YCSB's check and message.
		errs = append(errs, fmt.Errorf("%s: invalid URL %q: must be of the form "+
			"'mongodb://<host1>:<port1>,<host2>:<port2>/database?options' or 'mongodb+srv://<host>/database?options'",
			PropURL, redactURL(c.URL)))
	}
	if len(errs) > 0 {
		return c, fmt.Errorf("mongodb properties: %w", errors.Join(errs...))
	}

	opts, err := legacyURLOptions(p)
	if err != nil {
		return c, fmt.Errorf("mongodb properties: %w", err)
	}
	present := urlOptionKeys(c.URL)
	for _, o := range opts {
		if !present[strings.ToLower(o.key)] {
			c.URL = addURLOption(c.URL, o.key, o.value)
		}
	}
	if p.Has(propWaitQueueMultiple) {
		c.Warnings = append(c.Warnings, propWaitQueueMultiple+" is ignored: the Go driver has no wait queue limit")
	}
	if c.Database, err = urlDatabase(c.URL); err != nil {
		return c, fmt.Errorf("%s: %w", PropURL, err)
	}
	if c.Database == "" || c.Database == "admin" {
		c.Database = DefaultDatabase
	}
	return c, nil
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
func urlDatabase(u string) (string, error) {
	_, path, _, _ := splitURL(u)
	db, err := url.PathUnescape(path)
	if err != nil {
		return "", fmt.Errorf("database name in %q: %w", redactURL(u), err)
	}
	return db, nil
}

// redactURL hides the password of a connection string, for messages.
func redactURL(u string) string {
	schemeEnd := strings.Index(u, "://")
	if schemeEnd < 0 {
		return u
	}
	schemeEnd += len("://")
	hostsEnd := len(u)
	if i := strings.IndexAny(u[schemeEnd:], "/?"); i >= 0 {
		hostsEnd = schemeEnd + i
	}
	at := strings.LastIndex(u[schemeEnd:hostsEnd], "@")
	if at < 0 {
		return u
	}
	user, _, hasPassword := strings.Cut(u[schemeEnd:schemeEnd+at], ":")
	if !hasPassword {
		return u
	}
	return u[:schemeEnd] + user + ":xxxxx" + u[schemeEnd+at:]
}
