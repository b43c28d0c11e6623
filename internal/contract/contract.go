package contract

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Flags of the result ConfigMap, taken by `loader load|run|bootstrap`
// (without their leading dashes).
const (
	// FlagResultConfigMap is the ConfigMap's name prefix: the loader with
	// index i creates IndexedName(prefix, i).
	FlagResultConfigMap = "result-configmap"
	// FlagResultOwner is the ConfigMap's controlling owner (EncodeOwner).
	FlagResultOwner = "result-owner"
	// FlagResultLabels are the ConfigMap's labels (EncodeLabels).
	FlagResultLabels = "result-labels"
)

// LabelLoaderIndex is added by the loader to every result ConfigMap: its
// index (the Job's completion index; 0 for bootstrap). It is the one label
// key not in api/v1alpha1/labels.go, which the loader binary does not
// import (it would bring in k8s.io/api and apimachinery).
const LabelLoaderIndex = "bench.mongobench.io/loader-index"

// Data keys of the result ConfigMaps.
const (
	// ConfigMapKey is the binaryData key holding a load or run phase's
	// encoded result (results.Encode).
	ConfigMapKey = "result.json.gz"
	// BootstrapConfigMapKey is the data key of a bootstrap Job's result
	// (results.EncodeBootstrap).
	BootstrapConfigMapKey = "bootstrap.json"
)

// ResultConfigMapPrefix is the --result-configmap value of the Job named
// jobName: <job>-result.
func ResultConfigMapPrefix(jobName string) string { return jobName + "-result" }

// IndexedName is the ConfigMap that the loader with the given index creates
// for --result-configmap prefix: <prefix>-<index>.
func IndexedName(prefix string, index int) string { return prefix + "-" + strconv.Itoa(index) }

// ResultConfigMapName is where the pod of Job jobName with completion index
// i writes its result, and where the controller reads it: <job>-result-<i>.
func ResultConfigMapName(jobName string, index int) string {
	return IndexedName(ResultConfigMapPrefix(jobName), index)
}

// The start barrier of a phase with several loaders: each loader, once
// its connections are open, creates its ready ConfigMap
// (ReadyConfigMapName) and waits for the start ConfigMap
// (StartConfigMapName), which the controller creates once every loader is
// ready, with one instant a little ahead (StartAtKey) at which every
// loader starts its clock. So the phase's window (first start to last end)
// holds no stretch where only some loaders ran.
const (
	// FlagStartBarrier is the Job's name: the loader waits at the barrier
	// of that Job. It needs --result-configmap (the ready ConfigMap is
	// owned and labelled like the result).
	FlagStartBarrier = "start-barrier"
	// StartAtKey is the start ConfigMap's data key: the instant, RFC 3339
	// with nanoseconds, UTC.
	StartAtKey = "startAt"
	// ReadyAtKey, ReadyConnectionsKey and ReadyConnectMillisKey are a
	// ready ConfigMap's data keys: when the loader was ready, and the
	// connections it opened and how long that took.
	ReadyAtKey            = "readyAt"
	ReadyConnectionsKey   = "connections"
	ReadyConnectMillisKey = "connectMillis"
)

// ReadyConfigMapName is the ready ConfigMap of loader i of Job jobName:
// <job>-ready-<i>.
func ReadyConfigMapName(jobName string, index int) string {
	return IndexedName(jobName+"-ready", index)
}

// StartConfigMapName is the start ConfigMap of Job jobName: <job>-start.
func StartConfigMapName(jobName string) string { return jobName + "-start" }

// FlagValue is how an enum value is written on a Job's command line: in
// lower case ("sharded" for Sharded). The BenchmarkRun API (TopologyMode,
// ShardKey) and internal/mongoadmin (Mode, ShardKey) spell their values
// alike; the controller writes the flags from the API's values
// (internal/topology), and the loader maps them back onto mongoadmin's,
// ignoring case (`loader bootstrap --mode, --shard-key`).
func FlagValue[T ~string](v T) string { return strings.ToLower(string(v)) }

// Owner is the controlling owner of a result ConfigMap, as --result-owner
// carries it. None of its fields may contain a comma; Kubernetes' API
// versions, kinds, names and UIDs never do.
type Owner struct {
	APIVersion string
	Kind       string
	Name       string
	UID        string
}

// EncodeOwner is the --result-owner value of o: "APIVERSION,KIND,NAME,UID".
func EncodeOwner(o Owner) string {
	return strings.Join([]string{o.APIVersion, o.Kind, o.Name, o.UID}, ",")
}

// DecodeOwner parses EncodeOwner's form, e.g.
// "bench.mongobench.io/v1alpha1,BenchmarkRun,run1,0b6c…". Spaces around a
// field are ignored; every field must be set.
func DecodeOwner(s string) (Owner, error) {
	parts := strings.Split(s, ",")
	if len(parts) != 4 {
		return Owner{}, fmt.Errorf("owner %q: want APIVERSION,KIND,NAME,UID", s)
	}
	for i, p := range parts {
		parts[i] = strings.TrimSpace(p)
		if parts[i] == "" {
			return Owner{}, fmt.Errorf("owner %q: APIVERSION, KIND, NAME and UID must all be set", s)
		}
	}
	o := Owner{APIVersion: parts[0], Kind: parts[1], Name: parts[2], UID: parts[3]}
	if strings.Count(o.APIVersion, "/") > 1 {
		return Owner{}, fmt.Errorf("owner %q: apiVersion %q: want group/version or version", s, o.APIVersion)
	}
	return o, nil
}

// EncodeLabels is the --result-labels value of labels: "k=v,k=v", sorted by
// key; "" for none. Keys and values must not contain ',' and keys not '=':
// label syntax allows neither.
func EncodeLabels(labels map[string]string) string {
	parts := make([]string, 0, len(labels))
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		parts = append(parts, k+"="+labels[k])
	}
	return strings.Join(parts, ",")
}

// DecodeLabels parses EncodeLabels' form: "k=v,k=v" ("" or blanks: none;
// spaces around an item are ignored; a later key wins). The form is all it
// knows: check, when not nil, is called on each label in order, and its
// error, returned as is, stops the parse. The loader passes the API
// server's label rules (k8sresult.ValidateLabel), so that a bad label is
// found before any work.
func DecodeLabels(s string, check func(key, value string) error) (map[string]string, error) {
	labels := map[string]string{}
	if strings.TrimSpace(s) == "" {
		return labels, nil
	}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok {
			return nil, fmt.Errorf("label %q: want key=value", kv)
		}
		if check != nil {
			if err := check(k, v); err != nil {
				return nil, err
			}
		}
		labels[k] = v
	}
	return labels, nil
}
