package v1alpha1_test

import (
	"strings"
	"testing"
)

// ext is the topology of an External run with extra fields of external.
func ext(extra string) string {
	return "  topology:\n    mode: External\n    external:\n      uriSecretRef: {name: cluster, key: connectionString.standard}\n" + extra
}

// TestExternalManifests: topology.external is required with mode External
// and only allowed then; the Secret references are complete; the run's
// database follows MongoDB's naming restrictions; the fields that only
// make sense for a deployment mongobench makes are refused, each with a
// message that says why; at kubectl apply.
func TestExternalManifests(t *testing.T) {
	c := newClient(t)
	ns := namespace(t, c)
	bad := []struct{ name, spec, want string }{
		{"no external", "  topology: {mode: External}\n", "external is required when mode is External, and only allowed then"},
		{"external on a standalone", "  topology:\n    mode: Standalone\n    external: {uriSecretRef: {name: a, key: b}}\n",
			"external is required when mode is External, and only allowed then"},
		{"no uriSecretRef", "  topology:\n    mode: External\n    external: {database: x}\n", "uriSecretRef: Required value"},
		{"uriSecretRef without key", "  topology:\n    mode: External\n    external: {uriSecretRef: {name: a}}\n", "key: Required value"},
		{"empty key", "  topology:\n    mode: External\n    external: {uriSecretRef: {name: a, key: ''}}\n", "should be at least 1 chars long"},
		{"monitor without key", ext("      monitorURISecretRef: {name: m}\n"), "key: Required value"},
		{"CA without key", ext("      tls: {caSecretRef: {name: ca}}\n"), "key: Required value"},
		{"client cert without name", ext("      tls: {clientCertSecretRef: {}}\n"), "name: Required value"},
		{"database with a dot", ext("      database: my.db\n"), "should match '^[A-Za-z0-9_-]+$'"},
		{"database with a slash", ext("      database: a/b\n"), "should match '^[A-Za-z0-9_-]+$'"},
		{"database with a dollar", ext("      database: a$b\n"), "should match '^[A-Za-z0-9_-]+$'"},
		{"database with a space", ext("      database: 'a b'\n"), "should match '^[A-Za-z0-9_-]+$'"},
		{"empty database", ext("      database: ''\n"), "should be at least 1 chars long"},
		{"64-character database", ext("      database: " + strings.Repeat("d", 64) + "\n"), "may not be more than 63"},
		{"admin", ext("      database: admin\n"), "database must not be admin, local or config"},
		{"Local", ext("      database: Local\n"), "database must not be admin, local or config"},
		{"config", ext("      database: config\n"), "database must not be admin, local or config"},
		{"shards", ext("    shards: 2\n"), "shards can only be set when mode is Sharded"},
		{"members", ext("    members: 3\n"), "members can only be set when mode is ReplicaSet"},
		{"shardMembers", ext("    shardMembers: 3\n"), "shardMembers and configServerMembers can only be set when mode is Sharded"},
		{"configServerMembers", ext("    configServerMembers: 3\n"), "shardMembers and configServerMembers can only be set when mode is Sharded"},
		{"mongosResources", ext("    mongosResources: {limits: {cpu: '1'}}\n"), "mongosResources and configServerResources can only be set when mode is Sharded"},
		{"env", ext("    env: [{name: A, value: b}]\n"), "env sets the environment of the MongoDB containers mongobench deploys"},
		{"auth", ext("  security: {auth: true}\n"), "security.auth turns on access control in the MongoDB mongobench deploys"},
		{"spread", ext("  placement: {layout: Spread}\n"), "placement.layout Spread places the database pods mongobench deploys"},
		{"nodeName", ext("  placement: {nodeName: n1}\n"), "placement.nodeName and nodeSelector choose the node of the database pods"},
		{"nodeSelector", ext("  placement: {nodeSelector: {disk: ssd}}\n"), "placement.nodeName and nodeSelector choose the node of the database pods"},
		{"loaders on the database node", ext("  placement: {loaderPlacement: SameNode}\n"), "placement.loaderPlacement SameNode puts the loaders on the node"},
	}
	for i, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			_, err := create(t, c, ns, run("ext-bad-"+itoa(i), tc.spec))
			if err == nil {
				t.Fatalf("accepted; want an error containing %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q\ndoes not contain %q", err, tc.want)
			}
		})
	}
	good := []string{
		ext(""),
		ext("      database: mongobench_nightly-2\n      allowExistingData: true\n      shardCollection: false\n"),
		ext("      database: " + strings.Repeat("d", 63) + "\n"),
		ext("      monitorURISecretRef: {name: m, key: uri}\n      tls: {caSecretRef: {name: ca, key: ca.crt}, clientCertSecretRef: {name: client}}\n    shardKey: Ranged\n"),
		// w above one member: the cluster's members are not known here.
		ext("  driver: {writeConcern: \"3\", readConcern: snapshot}\n  placement: {loaderPlacement: AnyNode}\n  security: {networkPolicy: false}\n"),
	}
	for i, spec := range good {
		if _, err := create(t, c, ns, run("ext-ok-"+itoa(i), spec)); err != nil {
			t.Errorf("rejected %s: %v", spec, err)
		}
	}
}
