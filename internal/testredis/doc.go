// Package testredis connects tests to the real Redis servers that
// ./scripts/test starts: one standalone server and a three-master cluster,
// all on loopback ports chosen at run time.
//
// The script exports their addresses in environment variables:
//
//	RATEWINDOW_REDIS_ADDR           host:port of the standalone server
//	RATEWINDOW_REDIS_CLUSTER_ADDRS  comma-separated host:port of the cluster masters
//	RATEWINDOW_REDIS_SERVER         path of the redis-server binary
//
// A test asks for what it needs and gets a ready client, closed by
// t.Cleanup:
//
//	func TestSomething(t *testing.T) {
//		rdb := testredis.Standalone(t)
//		prefix := testredis.Prefix(t) // keys no other test uses
//		...
//	}
//
// When a variable is unset the test is skipped with a message that says to
// run ./scripts/test; under CI (CI=true) it fails instead, so a CI run can
// never pass by silently skipping every Redis test. When a variable is set
// but the server does not answer a PING within two seconds, the test fails.
//
// Tests that must stop a server mid-test (to see a store's error path) start
// their own with Server (or ServerWith, for extra redis-server arguments),
// never touching the shared ones; Instance.Freeze stops such a server's
// process until the test thaws it, a Redis that hangs. Tests that kill a master, fail over or
// migrate slots start a private topology: StartCluster (masters with
// replicas) or StartSentinel (a master, a replica and three Sentinels).
// SingleNodeCluster starts one cluster node that serves every slot: an
// endpoint with one address that still refuses multi-slot commands.
// StartLoading starts a server that, restarted on its dataset, answers
// LOADING until the test lets it finish (Instance.Restart restarts any).
// All of them listen on loopback ports 10000-21999 and stop in t.Cleanup;
// they need only RATEWINDOW_REDIS_SERVER.
package testredis
