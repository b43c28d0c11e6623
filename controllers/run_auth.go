package controllers

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/topology"
)

// authSecretRequeue is how often a run looks again at a Secret of its
// name that is not yet its own.
const authSecretRequeue = 2 * time.Second

// ensureAuthSecrets creates the Secrets of a run with security.auth, its
// keyfile and its users' passwords, before its first database pod: the
// pods' init containers and the Jobs read them. Their content is drawn
// here, once: each is immutable, and no retry, stale cache or restarted
// manager may put a new keyfile or password under processes started with
// the old one. So a Secret is created only while none of the run's
// database pods exists, and never replaced: AlreadyExists means the
// cache has not caught up with this run's own Secret yet, or a Secret of
// that name is left by an earlier run of the same name until the garbage
// collector deletes it; the run waits, before any pod, until the cache
// shows the Secret as the run's or the name is free. Once a pod exists,
// a Secret missing from the cache is not re-created (the cache lags, or
// someone deleted it: then what needs it fails with Kubernetes' reason,
// rather than with a keyfile that matches nothing).
func (r *BenchmarkRunReconciler) ensureAuthSecrets(ctx context.Context, s *runState) (bool, error) {
	run := s.run
	if !topology.AuthEnabled(run) || s.databasePodExists() {
		return true, nil
	}
	for _, name := range []string{topology.KeyfileSecretName(run), topology.AdminSecretName(run)} {
		if s.secrets[name] != nil {
			continue
		}
		secret, err := newAuthSecret(run, name)
		if err != nil {
			return false, err
		}
		err = r.Create(ctx, secret)
		switch {
		case err == nil:
			s.secrets[name] = secret
		case apierrors.IsAlreadyExists(err):
			s.setCondition(benchv1.ConditionTopologyReady, metav1.ConditionFalse, benchv1.ReasonProvisioning,
				fmt.Sprintf("waiting for Secret %s to be this run's (security.auth): one of that name exists, "+
					"an earlier run's until it is deleted, or one this run created that the manager has not seen yet", name))
			s.wakeAfter(authSecretRequeue)
			return false, nil
		default:
			return false, fmt.Errorf("create Secret %s: %w", name, err)
		}
	}
	return true, nil
}

// newAuthSecret draws the content of the run's auth Secret name.
func newAuthSecret(run *benchv1.BenchmarkRun, name string) (*corev1.Secret, error) {
	if name == topology.KeyfileSecretName(run) {
		keyfile, err := topology.NewKeyfile()
		if err != nil {
			return nil, fmt.Errorf("keyfile of %s: %w", run.Name, err)
		}
		return topology.KeyfileSecret(run, keyfile), nil
	}
	admin, err := topology.NewPassword()
	if err != nil {
		return nil, fmt.Errorf("admin password of %s: %w", run.Name, err)
	}
	monitor, err := topology.NewPassword()
	if err != nil {
		return nil, fmt.Errorf("monitor password of %s: %w", run.Name, err)
	}
	return topology.AdminSecret(run, admin, monitor), nil
}

// databasePodExists reports whether any MongoDB pod of the run exists.
func (s *runState) databasePodExists() bool {
	for _, p := range s.pods {
		if p.Labels[benchv1.LabelDatabase] == "true" {
			return true
		}
	}
	return false
}
