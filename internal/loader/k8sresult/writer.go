package k8sresult

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// ErrAlreadyExists is returned (wrapped) when the ConfigMap exists before
// the first attempt to create it.
var ErrAlreadyExists = errors.New("already exists")

// ErrNotFound is returned (wrapped) by Get when the ConfigMap does not exist.
var ErrNotFound = errors.New("not found")

// FieldManager names the loader in the objects' managedFields.
const FieldManager = "mongobench-loader"

// Retry defaults: attempts and backoff for network errors, 5xx and 429.
const (
	DefaultAttempts       = 6
	DefaultBackoff        = 250 * time.Millisecond
	DefaultMaxBackoff     = 5 * time.Second
	DefaultRequestTimeout = 15 * time.Second
	// maxErrorBody bounds what is read of an error response.
	maxErrorBody = 16 << 10
)

// OwnerReference is the controlling owner of a ConfigMap (controller: true,
// blockOwnerDeletion unset): the BenchmarkRun, so results are garbage
// collected with it.
type OwnerReference struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Name       string `json:"name"`
	UID        string `json:"uid"`
}

// ConfigMap is what Create writes. Data and BinaryData may both be set.
type ConfigMap struct {
	Namespace  string
	Name       string
	Labels     map[string]string
	Owner      *OwnerReference
	Data       map[string]string
	BinaryData map[string][]byte
	// Mutable leaves the ConfigMap mutable (a disruption's ledger, which
	// Update completes); a result is immutable.
	Mutable bool
}

// Writer creates ConfigMaps. Use New (tests, an explicit server) or
// InCluster.
type Writer struct {
	base   string
	client *http.Client
	token  func() (string, error)

	// Attempts, Backoff and MaxBackoff bound retries (defaults when 0);
	// RequestTimeout bounds each attempt.
	Attempts       int
	Backoff        time.Duration
	MaxBackoff     time.Duration
	RequestTimeout time.Duration
	// Logger receives a line per retry (nil: none).
	Logger *slog.Logger
}

// New returns a Writer for the API server at baseURL ("https://host:port")
// using client (its transport carries TLS and any client certificate) and
// a bearer token ("" sends none).
func New(baseURL string, client *http.Client, token string) *Writer {
	return &Writer{
		base:   strings.TrimRight(baseURL, "/"),
		client: client,
		token:  func() (string, error) { return token, nil },
	}
}

// configMapJSON is the v1 ConfigMap as the API server reads it.
type configMapJSON struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Metadata   metadataJSON      `json:"metadata"`
	Immutable  bool              `json:"immutable"`
	Data       map[string]string `json:"data,omitempty"`
	BinaryData map[string][]byte `json:"binaryData,omitempty"` // base64, as the API expects
}

type metadataJSON struct {
	Name            string            `json:"name"`
	Namespace       string            `json:"namespace"`
	Labels          map[string]string `json:"labels,omitempty"`
	OwnerReferences []ownerJSON       `json:"ownerReferences,omitempty"`
}

type ownerJSON struct {
	OwnerReference
	Controller bool `json:"controller"`
}

// status is the part of a metav1.Status error body we report.
type status struct {
	Message string `json:"message"`
	Reason  string `json:"reason"`
}

// Create creates the ConfigMap, immutable (a result never changes),
// retrying network errors, 5xx and 429 with a bounded exponential backoff
// (Retry-After honoured up to MaxBackoff). Other answers are final.
func (w *Writer) Create(ctx context.Context, cm *ConfigMap) error {
	if err := ValidateConfigMap(cm); err != nil {
		return err
	}
	obj := configMapJSON{
		APIVersion: "v1",
		Kind:       "ConfigMap",
		Metadata:   metadataJSON{Name: cm.Name, Namespace: cm.Namespace, Labels: cm.Labels},
		Immutable:  !cm.Mutable,
		Data:       cm.Data,
		BinaryData: cm.BinaryData,
	}
	if cm.Owner != nil {
		obj.Metadata.OwnerReferences = []ownerJSON{{OwnerReference: *cm.Owner, Controller: true}}
	}
	body, err := json.Marshal(obj)
	if err != nil {
		return fmt.Errorf("encode ConfigMap %s/%s: %w", cm.Namespace, cm.Name, err)
	}
	u := w.base + "/api/v1/namespaces/" + url.PathEscape(cm.Namespace) + "/configmaps?fieldManager=" + FieldManager
	what := "create ConfigMap " + cm.Namespace + "/" + cm.Name
	return w.send(ctx, http.MethodPost, u, "application/json", body, http.StatusCreated, what, cm.Name)
}

// Update merges data into a mutable ConfigMap's data (a JSON merge patch,
// RFC 7386, as the API server applies it to a ConfigMap: keys set, others
// kept), with Create's retries: a patch that is applied twice changes
// nothing the second time. ErrNotFound when the ConfigMap does not exist.
func (w *Writer) Update(ctx context.Context, namespace, name string, data map[string]string) error {
	body, err := json.Marshal(map[string]any{"data": data})
	if err != nil {
		return fmt.Errorf("encode ConfigMap %s/%s's data: %w", namespace, name, err)
	}
	u := w.base + "/api/v1/namespaces/" + url.PathEscape(namespace) + "/configmaps/" + url.PathEscape(name) + "?fieldManager=" + FieldManager
	return w.send(ctx, http.MethodPatch, u, "application/merge-patch+json", body, http.StatusOK, "update ConfigMap "+namespace+"/"+name, name)
}

// send makes one request with retries: network errors, 5xx and 429 with
// a bounded exponential backoff (Retry-After honoured up to MaxBackoff).
// Other answers are final; want is success.
func (w *Writer) send(ctx context.Context, method, u, contentType string, body []byte, want int, what, name string) error {

	attempts := orDefault(w.Attempts, DefaultAttempts)
	backoff := orDefault(w.Backoff, DefaultBackoff)
	maxBackoff := orDefault(w.MaxBackoff, DefaultMaxBackoff)
	ambiguous := false // an earlier attempt may have created it
	var last error
	for attempt := 1; ; attempt++ {
		res := w.post(ctx, method, u, contentType, body, want)
		switch {
		case res.err == nil && res.code == want:
			return nil
		case method == http.MethodPost && res.code == http.StatusConflict && res.status.Reason == "AlreadyExists":
			if ambiguous {
				w.log("ConfigMap exists after an attempt whose answer was lost; that attempt created it", "configmap", name)
				return nil
			}
			return fmt.Errorf("%s: a result already exists (the Job's loader ran before; a Job must not run twice): %w", what, ErrAlreadyExists)
		case method == http.MethodPatch && res.code == http.StatusNotFound:
			return fmt.Errorf("%s: %w", what, ErrNotFound)
		}
		last = res.describe()
		if !res.retryable() {
			return fmt.Errorf("%s: %w", what, last)
		}
		if attempt >= attempts {
			return fmt.Errorf("%s: giving up after %d attempts: %w", what, attempt, last)
		}
		ambiguous = ambiguous || res.code != http.StatusTooManyRequests
		wait := min(backoff<<(attempt-1), maxBackoff)
		if res.retryAfter > 0 {
			wait = min(res.retryAfter, maxBackoff)
		}
		w.log("retrying", "configmap", name, "attempt", attempt, "err", last, "wait", wait)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%s: %w (last error: %w)", what, ctx.Err(), last)
		case <-t.C:
		}
	}
}

// result is one attempt's outcome.
type result struct {
	code       int // 0: no response
	status     status
	body       string
	retryAfter time.Duration
	err        error // transport error (code 0) or a request that could not be built
	final      bool  // err is not worth retrying
}

func (r result) retryable() bool {
	if r.err != nil {
		return !r.final
	}
	return r.code == http.StatusTooManyRequests || r.code >= 500
}

func (r result) describe() error {
	if r.err != nil {
		return r.err
	}
	msg := r.status.Message
	if msg == "" {
		msg = strings.TrimSpace(r.body)
	}
	return fmt.Errorf("%d %s: %s", r.code, http.StatusText(r.code), msg)
}

// Get reads a ConfigMap's data (one attempt, bounded by RequestTimeout):
// ErrNotFound when it does not exist.
func (w *Writer) Get(ctx context.Context, namespace, name string) (map[string]string, error) {
	u := w.base + "/api/v1/namespaces/" + url.PathEscape(namespace) + "/configmaps/" + url.PathEscape(name)
	what := "get ConfigMap " + namespace + "/" + name
	token, err := w.token()
	if err != nil {
		return nil, fmt.Errorf("%s: service account token: %w", what, err)
	}
	req, cancel, err := w.newRequest(ctx, http.MethodGet, u, nil, token)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer cancel()
	resp, err := w.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer func() { _ = resp.Body.Close() }()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	switch resp.StatusCode {
	case http.StatusOK:
		var cm struct {
			Data map[string]string `json:"data"`
		}
		if err := json.Unmarshal(data, &cm); err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		return cm.Data, nil
	case http.StatusNotFound:
		return nil, fmt.Errorf("%s: %w", what, ErrNotFound)
	}
	r := result{code: resp.StatusCode, body: string(data)}
	_ = json.Unmarshal(data, &r.status)
	return nil, fmt.Errorf("%s: %w", what, r.describe())
}

// newRequest is one attempt's request to the API server, as both Get and
// post make it: bounded by RequestTimeout (cancel ends it), asking for
// JSON as FieldManager, with the service account's token when there is
// one.
func (w *Writer) newRequest(ctx context.Context, method, u string, body io.Reader, token string) (*http.Request, context.CancelFunc, error) {
	rctx, cancel := context.WithTimeout(ctx, orDefault(w.RequestTimeout, DefaultRequestTimeout))
	req, err := http.NewRequestWithContext(rctx, method, u, body)
	if err != nil {
		cancel()
		return nil, nil, err //nolint:wrapcheck // Get and post wrap it, each in its own words
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", FieldManager)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return req, cancel, nil
}

func (w *Writer) post(ctx context.Context, method, u, contentType string, body []byte, want int) result {
	token, err := w.token()
	if err != nil {
		return result{err: fmt.Errorf("service account token: %w", err), final: true}
	}
	req, cancel, err := w.newRequest(ctx, method, u, bytes.NewReader(body), token)
	if err != nil {
		return result{err: fmt.Errorf("build request: %w", err), final: true}
	}
	defer cancel()
	req.Header.Set("Content-Type", contentType)
	resp, err := w.client.Do(req)
	if err != nil {
		// The caller's context ending is final; a per-attempt timeout or a
		// network error is retried.
		return result{err: err, final: ctx.Err() != nil}
	}
	defer func() { _ = resp.Body.Close() }()
	r := result{code: resp.StatusCode}
	data, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	if r.code != want {
		r.body = string(data)
		_ = json.Unmarshal(data, &r.status)
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
			r.retryAfter = time.Duration(s) * time.Second
		}
	}
	return r
}

func (w *Writer) log(msg string, args ...any) {
	if w.Logger != nil {
		w.Logger.Info(msg, args...)
	}
}

func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}
