package controllers

import (
	"context"
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/topology"
)

// observe reads every child of the run from the cache. Only objects that
// belong to this run (by owner UID) count, so a run re-created under the
// same name never adopts its predecessor's leftovers.
func (r *BenchmarkRunReconciler) observe(ctx context.Context, run *benchv1.BenchmarkRun) (*runState, error) {
	s := &runState{
		run: run, now: r.Clock.Now(),
		pods: map[string]*corev1.Pod{}, jobs: map[string]*batchv1.Job{}, configMaps: map[string]*corev1.ConfigMap{},
		services: map[string]*corev1.Service{}, claims: map[string]*corev1.PersistentVolumeClaim{}, rbac: map[string]bool{},
	}
	opts := []client.ListOption{client.InNamespace(run.Namespace), client.MatchingLabels{topology.LabelRun: run.Name}}

	var jobs batchv1.JobList
	if err := r.List(ctx, &jobs, opts...); err != nil {
		return nil, fmt.Errorf("list jobs: %w", err)
	}
	jobUIDs := map[string]bool{}
	for i := range jobs.Items {
		if j := &jobs.Items[i]; ownedBy(j, run.UID) {
			s.jobs[j.Name] = j
			jobUIDs[string(j.UID)] = true
		}
	}
	var pods corev1.PodList
	if err := r.List(ctx, &pods, opts...); err != nil {
		return nil, fmt.Errorf("list pods: %w", err)
	}
	for i := range pods.Items {
		p := &pods.Items[i]
		if ownedBy(p, run.UID) || ownedByAny(p, jobUIDs) {
			s.pods[p.Name] = p
		}
	}
	var cms corev1.ConfigMapList
	if err := r.List(ctx, &cms, opts...); err != nil {
		return nil, fmt.Errorf("list configmaps: %w", err)
	}
	for i := range cms.Items {
		if c := &cms.Items[i]; ownedBy(c, run.UID) {
			s.configMaps[c.Name] = c
		}
	}
	var svcs corev1.ServiceList
	if err := r.List(ctx, &svcs, opts...); err != nil {
		return nil, fmt.Errorf("list services: %w", err)
	}
	for i := range svcs.Items {
		if v := &svcs.Items[i]; ownedBy(v, run.UID) {
			s.services[v.Name] = v
		}
	}
	var pvcs corev1.PersistentVolumeClaimList
	if err := r.List(ctx, &pvcs, opts...); err != nil {
		return nil, fmt.Errorf("list persistentvolumeclaims: %w", err)
	}
	for i := range pvcs.Items {
		if c := &pvcs.Items[i]; ownedBy(c, run.UID) {
			s.claims[c.Name] = c
		}
	}
	lists := []struct {
		kind string
		list client.ObjectList
	}{{"ServiceAccount", &corev1.ServiceAccountList{}}, {"Role", &rbacv1.RoleList{}}, {"RoleBinding", &rbacv1.RoleBindingList{}}}
	for _, l := range lists {
		if err := r.List(ctx, l.list, opts...); err != nil {
			return nil, fmt.Errorf("list %ss: %w", l.kind, err)
		}
		var items []metav1.Object
		switch v := l.list.(type) {
		case *corev1.ServiceAccountList:
			for i := range v.Items {
				items = append(items, &v.Items[i])
			}
		case *rbacv1.RoleList:
			for i := range v.Items {
				items = append(items, &v.Items[i])
			}
		case *rbacv1.RoleBindingList:
			for i := range v.Items {
				items = append(items, &v.Items[i])
			}
		}
		for _, o := range items {
			if ownedBy(o, run.UID) {
				s.rbac[l.kind+"/"+o.GetName()] = true
			}
		}
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

func ownedByAny(obj metav1.Object, uids map[string]bool) bool {
	for _, ref := range obj.GetOwnerReferences() {
		if uids[string(ref.UID)] {
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
