package topology

import (
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/utils/ptr"

	benchv1 "github.com/mongobench/mongobench/api/v1alpha1"
	"github.com/mongobench/mongobench/internal/contract"
)

// The run's Jobs report results by creating ConfigMaps (contract.ConfigMapKey);
// besides, the loaders of a phase with a start barrier read that phase's
// start ConfigMap, and loader 0 of a phase with disruptions reads and
// updates their ledgers, by name. RBAC cannot restrict create by name, so the
// Role is per run and namespace, and lives only as long as the run.

// JobServiceAccount is the identity of the run's Jobs.
func JobServiceAccount(run *benchv1.BenchmarkRun) *corev1.ServiceAccount {
	return &corev1.ServiceAccount{
		ObjectMeta:                   objectMeta(run, JobServiceAccountName(run), RunLabels(run, benchv1.ComponentRBAC)),
		AutomountServiceAccountToken: ptr.To(false),
	}
}

// JobRole allows creating ConfigMaps in the run's namespace, reading the
// start ConfigMaps of the run's phases with a start barrier, and reading
// and updating the ledgers of the run's disruptions (loader 0 writes the
// action's outcome into its ledger once it returned, and reads a ledger
// it finds already created, to report what its predecessor did), nothing
// else.
func JobRole(run *benchv1.BenchmarkRun) *rbacv1.Role {
	role := &rbacv1.Role{
		ObjectMeta: objectMeta(run, JobServiceAccountName(run), RunLabels(run, benchv1.ComponentRBAC)),
		Rules: []rbacv1.PolicyRule{{
			APIGroups: []string{""},
			Resources: []string{"configmaps"},
			Verbs:     []string{"create"},
		}},
	}
	var starts []string
	for i := range run.Spec.Phases {
		if ph := &run.Spec.Phases[i]; StartBarrier(run, ph) {
			starts = append(starts, contract.StartConfigMapName(PhaseJobName(run, ph.Name)))
		}
	}
	if len(starts) > 0 {
		role.Rules = append(role.Rules, rbacv1.PolicyRule{
			APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get"}, ResourceNames: starts,
		})
	}
	var ledgers []string //nolint:prealloc // nil without disruptions: no rule
	for i := range run.Spec.Phases {
		ledgers = append(ledgers, DisruptionLedgerNames(run, &run.Spec.Phases[i])...)
	}
	if len(ledgers) > 0 {
		role.Rules = append(role.Rules, rbacv1.PolicyRule{
			APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "patch"}, ResourceNames: ledgers,
		})
	}
	return role
}

// JobRoleBinding binds JobRole to JobServiceAccount.
func JobRoleBinding(run *benchv1.BenchmarkRun) *rbacv1.RoleBinding {
	return &rbacv1.RoleBinding{
		ObjectMeta: objectMeta(run, JobServiceAccountName(run), RunLabels(run, benchv1.ComponentRBAC)),
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: JobServiceAccountName(run)},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: JobServiceAccountName(run), Namespace: run.Namespace}},
	}
}
