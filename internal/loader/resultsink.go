package loader

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"time"

	"github.com/mongobench/mongobench/internal/contract"
	"github.com/mongobench/mongobench/internal/loader/k8sresult"
)

// resultWriteTimeout bounds writing a result ConfigMap, retries included.
// With StopGrace (5 s) it keeps a SIGTERM's partial result within
// Kubernetes' default 30 s termination grace period.
const resultWriteTimeout = 20 * time.Second

// resultFlags are the flags of the result ConfigMap, shared by load, run
// and bootstrap: the Jobs' side of internal/contract.
type resultFlags struct {
	configMap string
	owner     string
	labels    string
}

func (r *resultFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&r.configMap, contract.FlagResultConfigMap, "",
		"create ConfigMap `NAME`-<loader index> in the pod's namespace (POD_NAMESPACE, else the service account's) holding the result")
	fs.StringVar(&r.owner, contract.FlagResultOwner, "",
		"controlling owner of the result ConfigMap: `APIVERSION,KIND,NAME,UID`")
	fs.StringVar(&r.labels, contract.FlagResultLabels, "", "labels of the result ConfigMap: `k=v,k=v`")
}

// configMapSink is a checked --result-configmap destination, ready before
// any work starts so that a mistake in it does not cost a whole run.
type configMapSink struct {
	writer *k8sresult.Writer
	cm     k8sresult.ConfigMap
}

// configMapFor checks the flags and returns the ConfigMap they ask for, for
// the loader with the given index, without its namespace and data; nil
// when no ConfigMap is asked for.
func (r *resultFlags) configMapFor(index int) (*k8sresult.ConfigMap, error) {
	if r.configMap == "" {
		if r.owner != "" || r.labels != "" {
			return nil, usagef("--result-owner and --result-labels need --result-configmap")
		}
		return nil, nil
	}
	cm := &k8sresult.ConfigMap{Name: contract.IndexedName(r.configMap, index)}
	if err := k8sresult.ValidateName(cm.Name); err != nil {
		return nil, usagef("--result-configmap: %w", err)
	}
	var err error
	if cm.Labels, err = contract.DecodeLabels(r.labels, k8sresult.ValidateLabel); err != nil {
		return nil, usagef("--result-labels: %w", err)
	}
	cm.Labels[contract.LabelLoaderIndex] = strconv.Itoa(index)
	if r.owner != "" {
		owner, err := contract.DecodeOwner(r.owner)
		if err != nil {
			return nil, usagef("--result-owner: %w", err)
		}
		cm.Owner = &k8sresult.OwnerReference{APIVersion: owner.APIVersion, Kind: owner.Kind, Name: owner.Name, UID: owner.UID}
	}
	return cm, nil
}

// prepare checks the flags (configMapFor), finds the pod's namespace and sets
// up the Kubernetes client; nil when no ConfigMap is asked for.
func (r *resultFlags) prepare(env Env, index int) (*configMapSink, error) {
	cm, err := r.configMapFor(index)
	if cm == nil || err != nil {
		return nil, err
	}
	if cm.Namespace, err = k8sresult.Namespace(env.Getenv); err != nil {
		return nil, fmt.Errorf("--result-configmap: %w", err)
	}
	if err := k8sresult.ValidateName(cm.Namespace); err != nil {
		return nil, fmt.Errorf("--result-configmap: namespace: %w", err)
	}
	newWriter := env.NewResultWriter
	if newWriter == nil {
		newWriter = func() (*k8sresult.Writer, error) { return k8sresult.InCluster(env.Getenv) }
	}
	w, err := newWriter()
	if err != nil {
		return nil, fmt.Errorf("--result-configmap: %w", err)
	}
	return &configMapSink{writer: w, cm: *cm}, nil
}

// write creates the ConfigMap with the given contents. It runs after a
// SIGTERM too, so it ignores ctx's cancellation and has its own deadline.
func (s *configMapSink) write(ctx context.Context, data map[string]string, binary map[string][]byte) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), resultWriteTimeout)
	defer cancel()
	cm := s.cm
	cm.Data, cm.BinaryData = data, binary
	if err := s.writer.Create(ctx, &cm); err != nil {
		return fmt.Errorf("write result: %w", err)
	}
	return nil
}
