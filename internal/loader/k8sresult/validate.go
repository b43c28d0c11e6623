package k8sresult

import (
	"errors"
	"fmt"
	"regexp"
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
