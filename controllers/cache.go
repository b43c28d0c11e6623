package controllers

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
)

// CacheOptions restricts the manager's cache to the objects it manages: a
// cluster's pods, ConfigMaps and Jobs can be many and are none of its
// business, and its Secrets are not even the manager's to hold in memory
// (it caches only the runs' own, security.auth's). namespace, when not
// empty, limits the cache to one namespace.
func CacheOptions(namespace string) cache.Options {
	ours := labels.SelectorFromSet(labels.Set{benchv1.LabelManagedBy: benchv1.ManagedBy})
	byObject := map[client.Object]cache.ByObject{}
	for _, o := range []client.Object{&corev1.Pod{}, &corev1.ConfigMap{}, &corev1.Service{}, &corev1.PersistentVolumeClaim{},
		&corev1.ServiceAccount{}, &batchv1.Job{}, &rbacv1.Role{}, &rbacv1.RoleBinding{}, &networkingv1.NetworkPolicy{}, &corev1.Secret{}} {
		byObject[o] = cache.ByObject{Label: ours}
	}
	opts := cache.Options{ByObject: byObject}
	if namespace != "" {
		opts.DefaultNamespaces = map[string]cache.Config{namespace: {}}
	}
	return opts
}
