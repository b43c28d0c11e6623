package mongodb

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
)

// TestNewClientExplainsConnectionFailures connects to a closed port with
// short waits: the error names the hosts, how long the loader waited and
// what set the wait, whichever bound is the shorter.
func TestNewClientExplainsConnectionFailures(t *testing.T) {
	for _, tc := range []struct {
		url     string
		timeout time.Duration
		setBy   string
	}{
		{"mongodb://127.0.0.1:1/x", 300 * time.Millisecond, "the wait is set by mongodb.operationtimeout (300ms)"},
		{"mongodb://u:secret@127.0.0.1:1/x?serverSelectionTimeoutMS=200", 5 * time.Second,
			"the wait is set by serverSelectionTimeoutMS in mongodb.url (200ms)"},
	} {
		start := time.Now()
		_, err := NewClient(context.Background(), Config{URL: tc.url, Database: "x", BatchSize: 1, OperationTimeout: tc.timeout}, nil)
		if err == nil {
			t.Fatalf("%s: connected", tc.url)
		}
		msg := err.Error()
		if !regexp.MustCompile(`^cannot reach MongoDB at 127\.0\.0\.1:1 \(mongodb\.url\) after \d+ms: .*connection refused`).MatchString(msg) ||
			!strings.HasSuffix(msg, "; "+tc.setBy) || strings.Contains(msg, "secret") {
			t.Errorf("%s: %s", tc.url, msg)
		}
		if d := time.Since(start); d > 4*time.Second {
			t.Errorf("%s: took %v", tc.url, d)
		}
	}
}

func TestConnectError(t *testing.T) {
	sst := func(d time.Duration) *time.Duration { return &d }
	timeout := context.DeadlineExceeded
	cfg := func(op time.Duration) Config { return Config{URL: "mongodb://a:1,b:2/db?w=1", OperationTimeout: op} }
	for _, tc := range []struct {
		cfg    Config
		sst    *time.Duration
		waited time.Duration
		err    error
		want   string
	}{
		{cfg(30 * time.Second), nil, 30*time.Second + 4*time.Millisecond, timeout,
			"cannot reach MongoDB at a:1,b:2 (mongodb.url) after 30s: context deadline exceeded; " +
				"the wait is set by mongodb.operationtimeout (30s) and serverSelectionTimeoutMS in mongodb.url (default 30s)"},
		{cfg(time.Minute), nil, 30 * time.Second, timeout,
			"cannot reach MongoDB at a:1,b:2 (mongodb.url) after 30s: context deadline exceeded; " +
				"the wait is set by serverSelectionTimeoutMS in mongodb.url (default 30s)"},
		{cfg(time.Minute), sst(90 * time.Second), time.Minute + 40*time.Millisecond, timeout,
			"cannot reach MongoDB at a:1,b:2 (mongodb.url) after 1m0s: context deadline exceeded; " +
				"the wait is set by mongodb.operationtimeout (1m0s)"},
		{cfg(time.Second), nil, 12 * time.Millisecond, errors.New("auth error: sasl conversation error"),
			"cannot connect to MongoDB at a:1,b:2 (mongodb.url) after 10ms: auth error: sasl conversation error"},
	} {
		if got := connectError(tc.cfg, tc.sst, tc.waited, tc.err).Error(); got != tc.want {
			t.Errorf("\n got %s\nwant %s", got, tc.want)
		}
	}
	if !mongo.IsTimeout(timeout) {
		t.Fatal("the driver no longer counts a deadline as a timeout")
	}
}

func TestURLHosts(t *testing.T) {
	for in, want := range map[string]string{
		"mongodb://h":                        "h",
		"mongodb://u:p@h1:1,h2/db?w=1":       "h1:1,h2",
		"mongodb+srv://u@c.example.com/x":    "c.example.com",
		"mongodb://h?x=1":                    "h",
		"mongodb://u:p@ss@h/":                "h",
		"mongodb://":                         "",
		"mongodb://user:pw@h?authSource=a@b": "h",
	} {
		if got := urlHosts(in); got != want {
			t.Errorf("urlHosts(%q) = %q, want %q", in, got, want)
		}
	}
}
