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
// their own with Server, never touching the shared ones.
package testredis
