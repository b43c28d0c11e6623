package k8sresult

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// The checks the API server would make on a ConfigMap's name and labels,
// made before a benchmark runs: a result rejected at the end of an hour-long
// run would be lost.

var (
	dns1123Label = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	labelValue   = regexp.MustCompile(`^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$`)
)

// ValidateName checks a DNS subdomain name (RFC 1123): what ConfigMap and
// Namespace names must be.
func ValidateName(name string) error {
	if len(name) == 0 || len(name) > 253 {
		return fmt.Errorf("name %q: must be 1 to 253 characters", name)
	}
	for _, part := range strings.Split(name, ".") {
		if !dns1123Label.MatchString(part) {
			return fmt.Errorf("name %q: must consist of lower case alphanumeric characters, '-' or '.', "+
				"and start and end with an alphanumeric character", name)
		}
	}
	return nil
}

// ValidateLabel checks a label key ([prefix/]name) and value.
func ValidateLabel(key, value string) error {
	name := key
	if prefix, n, ok := strings.Cut(key, "/"); ok {
		if err := ValidateName(prefix); err != nil {
			return fmt.Errorf("label key %q: prefix: %w", key, err)
		}
		name = n
	}
	if len(name) == 0 || len(name) > 63 || !labelValue.MatchString(name) {
		return fmt.Errorf("label key %q: the name part must be 1 to 63 alphanumeric characters, '-', '_' or '.', "+
			"starting and ending with an alphanumeric character", key)
	}
	if len(value) > 63 || !labelValue.MatchString(value) {
		return fmt.Errorf("label %s value %q: must be at most 63 alphanumeric characters, '-', '_' or '.', "+
			"starting and ending with an alphanumeric character", key, value)
	}
	return nil
}

// ParseLabels parses "k=v,k=v" (empty: none).
func ParseLabels(s string) (map[string]string, error) {
	labels := map[string]string{}
	if strings.TrimSpace(s) == "" {
		return labels, nil
	}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok {
			return nil, fmt.Errorf("label %q: want key=value", kv)
		}
		if err := ValidateLabel(k, v); err != nil {
			return nil, err
		}
		labels[k] = v
	}
	return labels, nil
}

// FormatLabels is the inverse of ParseLabels, in sorted order.
func FormatLabels(labels map[string]string) string {
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + labels[k]
	}
	return strings.Join(parts, ",")
}

// ParseOwner parses "APIVERSION,KIND,NAME,UID", e.g.
// "bench.mongobench.io/v1alpha1,BenchmarkRun,run1,0b6c…".
func ParseOwner(s string) (*OwnerReference, error) {
	parts := strings.Split(s, ",")
	if len(parts) != 4 {
		return nil, fmt.Errorf("owner %q: want APIVERSION,KIND,NAME,UID", s)
	}
	for i, p := range parts {
		parts[i] = strings.TrimSpace(p)
		if parts[i] == "" {
			return nil, fmt.Errorf("owner %q: APIVERSION, KIND, NAME and UID must all be set", s)
		}
	}
	o := &OwnerReference{APIVersion: parts[0], Kind: parts[1], Name: parts[2], UID: parts[3]}
	if strings.Count(o.APIVersion, "/") > 1 {
		return nil, fmt.Errorf("owner %q: apiVersion %q: want group/version or version", s, o.APIVersion)
	}
	return o, nil
}

// ValidateConfigMap checks what Create sends.
func ValidateConfigMap(cm *ConfigMap) error {
	var errs []error
	if err := ValidateName(cm.Namespace); err != nil {
		errs = append(errs, fmt.Errorf("namespace: %w", err))
	}
	if err := ValidateName(cm.Name); err != nil {
		errs = append(errs, fmt.Errorf("ConfigMap: %w", err))
	}
	for k, v := range cm.Labels {
		errs = append(errs, ValidateLabel(k, v))
	}
	if len(cm.Data)+len(cm.BinaryData) == 0 {
		errs = append(errs, errors.New("ConfigMap has no data"))
	}
	for k := range cm.BinaryData {
		if _, dup := cm.Data[k]; dup {
			errs = append(errs, fmt.Errorf("key %q is in both data and binaryData", k))
		}
	}
	return errors.Join(errs...)
}
