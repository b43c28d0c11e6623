package controllers

import (
	"context"
	"errors"
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// observe reads every child of the run from the cache. Only objects that
// belong to this run (by owner UID) count, so a run re-created under the
// same name never adopts its predecessor's leftovers.
func (r *BenchmarkRunReconciler) observe(ctx context.Context, run *benchv1.BenchmarkRun) (*runState, error) {
	s := &runState{
		statusKit: newStatusKit(run, r.Clock.Now()), run: run,
		pods: map[string]*corev1.Pod{}, jobs: map[string]*batchv1.Job{}, configMaps: map[string]*corev1.ConfigMap{},
		services: map[string]*corev1.Service{}, claims: map[string]*corev1.PersistentVolumeClaim{},
		serviceAccounts: map[string]*corev1.ServiceAccount{}, roles: map[string]*rbacv1.Role{}, roleBindings: map[string]*rbacv1.RoleBinding{},
		networkPolicies: map[string]*networkingv1.NetworkPolicy{}, secrets: map[string]*corev1.Secret{},
		deletedPods: map[string]types.UID{}, recovering: map[string]bool{},
	}
	opts := []client.ListOption{client.InNamespace(run.Namespace), client.MatchingLabels{benchv1.LabelRun: run.Name}}
	list := func(l client.ObjectList, keep func(client.Object) bool, add func(client.Object)) error {
		if err := r.List(ctx, l, opts...); err != nil {
			return fmt.Errorf("list %T: %w", l, err)
		}
		return meta.EachListItem(l, func(o runtime.Object) error {
			if obj := o.(client.Object); keep(obj) {
				add(obj)
			}
			return nil
		})
	}
	owned := func(o client.Object) bool { return ownedBy(o, run.UID) }
	// Jobs first: their pods are owned by them, not by the run.
	jobUIDs := map[types.UID]bool{}
	err := errors.Join(
		list(&batchv1.JobList{}, owned, func(o client.Object) { s.jobs[o.GetName()] = o.(*batchv1.Job); jobUIDs[o.GetUID()] = true }),
		list(&corev1.ConfigMapList{}, owned, func(o client.Object) { s.configMaps[o.GetName()] = o.(*corev1.ConfigMap) }),
		list(&corev1.ServiceList{}, owned, func(o client.Object) { s.services[o.GetName()] = o.(*corev1.Service) }),
		list(&corev1.PersistentVolumeClaimList{}, owned, func(o client.Object) { s.claims[o.GetName()] = o.(*corev1.PersistentVolumeClaim) }),
		list(&corev1.ServiceAccountList{}, owned, func(o client.Object) { s.serviceAccounts[o.GetName()] = o.(*corev1.ServiceAccount) }),
		list(&rbacv1.RoleList{}, owned, func(o client.Object) { s.roles[o.GetName()] = o.(*rbacv1.Role) }),
		list(&rbacv1.RoleBindingList{}, owned, func(o client.Object) { s.roleBindings[o.GetName()] = o.(*rbacv1.RoleBinding) }),
		list(&networkingv1.NetworkPolicyList{}, owned, func(o client.Object) { s.networkPolicies[o.GetName()] = o.(*networkingv1.NetworkPolicy) }),
		list(&corev1.SecretList{}, owned, func(o client.Object) { s.secrets[o.GetName()] = o.(*corev1.Secret) }),
	)
	if err != nil {
		return nil, err
	}
	podOwned := func(o client.Object) bool { return owned(o) || ownedByAny(o, jobUIDs) }
	if err := list(&corev1.PodList{}, podOwned, func(o client.Object) { s.pods[o.GetName()] = o.(*corev1.Pod) }); err != nil {
		return nil, err
	}
	return s, nil
}

func ownedBy(obj metav1.Object, uid types.UID) bool {
	for _, ref := range obj.GetOwnerReferences() {
		if ref.UID == uid {
			return true
		}
	}
	return false
}

func ownedByAny(obj metav1.Object, uids map[types.UID]bool) bool {
	for _, ref := range obj.GetOwnerReferences() {
		if uids[ref.UID] {
			return true
		}
	}
	return false
}

// jobPods are the pods of a Job.
func (s *runState) jobPods(job *batchv1.Job) []*corev1.Pod {
	var out []*corev1.Pod
	for _, p := range s.pods {
		for _, ref := range p.OwnerReferences {
			if ref.UID == job.UID {
				out = append(out, p)
			}
		}
	}
	return out
}
