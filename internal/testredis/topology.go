package testredis

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// ClusterNode is one server of a private cluster.
type ClusterNode struct {
	*Instance
	// ID is the node's cluster id; Master is its master's id, empty for a
	// master.
	ID, Master string
}

// PrivateCluster is a Redis Cluster of the test's own (see StartCluster):
// tests that kill a node, fail over or migrate slots use one, never the
// shared cluster of ./scripts/test.
type PrivateCluster struct {
	// Masters are the masters in slot order (the first holds slot 0);
	// Replicas[i] are the replicas of Masters[i].
	Masters  []*ClusterNode
	Replicas [][]*ClusterNode
}

// Addrs returns the address of every node, masters first.
func (c *PrivateCluster) Addrs() []string {
	var a []string
	for _, m := range c.Masters {
		a = append(a, m.Addr)
	}
	for _, rs := range c.Replicas {
		for _, r := range rs {
			a = append(a, r.Addr)
		}
	}
	return a
}

// StartCluster starts a cluster of masters masters, each with replicas
// replicas, with the given cluster-node-timeout (how long a master must be
// unreachable before its replica takes over), and waits (at most 30 s)
// until every node reports cluster_state:ok and every replica is in sync.
// The nodes stop in t.Cleanup.
func StartCluster(t testing.TB, masters, replicas int, nodeTimeout time.Duration) *PrivateCluster {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	args := []string{"--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
		"--cluster-node-timeout", strconv.FormatInt(nodeTimeout.Milliseconds(), 10)}
	c := &PrivateCluster{}
	var all []*ClusterNode
	var clients []*redis.Client
	for i := 0; i < masters*(1+replicas); i++ {
		n := &ClusterNode{Instance: ServerWith(t, args...)}
		cl := n.Client(t)
		clients = append(clients, cl)
		id, err := cl.Do(ctx, "CLUSTER", "MYID").Text()
		if err != nil {
			t.Fatalf("testredis: cluster myid: %v", err)
		}
		n.ID = id
		all = append(all, n)
	}
	c.Masters = all[:masters]
	per := 16384 / masters
	for i := range c.Masters {
		first, last := i*per, (i+1)*per-1
		if i == masters-1 {
			last = 16383
		}
		if err := clients[i].Do(ctx, "CLUSTER", "ADDSLOTSRANGE", first, last).Err(); err != nil {
			t.Fatalf("testredis: addslots: %v", err)
		}
	}
	host, port := splitAddr(t, all[0].Addr)
	for _, cl := range clients[1:] {
		if err := cl.ClusterMeet(ctx, host, port).Err(); err != nil {
			t.Fatalf("testredis: cluster meet: %v", err)
		}
	}
	// Every node must know every other before a replica can name its master.
	waitFor(t, ctx, "every node to know the others", func() bool {
		for _, cl := range clients {
			s, err := cl.ClusterNodes(ctx).Result()
			if err != nil || strings.Count(strings.TrimSpace(s), "\n")+1 != len(all) {
				return false
			}
		}
		return true
	})
	c.Replicas = make([][]*ClusterNode, masters)
	for i, r := range all[masters:] {
		m := c.Masters[i%masters]
		r.Master = m.ID
		if err := clients[masters+i].ClusterReplicate(ctx, m.ID).Err(); err != nil {
			t.Fatalf("testredis: cluster replicate: %v", err)
		}
		c.Replicas[i%masters] = append(c.Replicas[i%masters], r)
	}
	waitFor(t, ctx, "cluster_state:ok and replicas in sync", func() bool {
		for i, n := range all {
			cl := clients[i]
			info, err := cl.ClusterInfo(ctx).Result()
			if err != nil || !strings.Contains(info, "cluster_state:ok") {
				return false
			}
			if n.Master != "" {
				repl, err := cl.Info(ctx, "replication").Result()
				if err != nil || !strings.Contains(repl, "master_link_status:up") {
					return false
				}
			}
		}
		return true
	})
	return c
}

// Sentinels is a master, its replica and three Sentinels watching them
// under the name SentinelMaster (see StartSentinel).
type Sentinels struct {
	Master, Replica *Instance
	Sentinels       []*Instance
}

// SentinelMaster is the master name the Sentinels of StartSentinel use.
const SentinelMaster = "ratewindow"

// Addrs returns the Sentinels' addresses, for UniversalOptions.Addrs
// with MasterName SentinelMaster.
func (s *Sentinels) Addrs() []string {
	var a []string
	for _, n := range s.Sentinels {
		a = append(a, n.Addr)
	}
	return a
}

// StartSentinel starts a master, one replica and three Sentinels (quorum
// two, a master is down after downAfter) and waits (at most 30 s) until
// every Sentinel knows the replica and the other Sentinels. They stop in
// t.Cleanup.
func StartSentinel(t testing.TB, downAfter time.Duration) *Sentinels {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s := &Sentinels{Master: Server(t)}
	host, port := splitAddr(t, s.Master.Addr)
	s.Replica = ServerWith(t, "--replicaof", host, port)
	var clients []*redis.Client
	var logs []string
	for i := range 3 {
		dir := t.TempDir()
		conf := filepath.Join(dir, "sentinel.conf")
		logs = append(logs, filepath.Join(dir, "sentinel.log"))
		body := fmt.Sprintf("sentinel monitor %s %s %s 2\n"+
			"sentinel down-after-milliseconds %s %d\n"+
			"sentinel failover-timeout %s 10000\n"+
			"logfile %s\n",
			SentinelMaster, host, port, SentinelMaster, downAfter.Milliseconds(), SentinelMaster, logs[i])
		if err := os.WriteFile(conf, []byte(body), 0o600); err != nil {
			t.Fatalf("testredis: sentinel %d: %v", i, err)
		}
		n := spawn(t, []string{conf, "--sentinel"}, nil)
		s.Sentinels = append(s.Sentinels, n)
		clients = append(clients, n.Client(t))
	}
	t.Cleanup(func() { // a failover that went wrong is told in these logs
		if !t.Failed() {
			return
		}
		for i, l := range logs {
			if b, err := os.ReadFile(l); err == nil {
				t.Logf("testredis: the last lines of sentinel %d's log:\n%s", i, lastLines(string(b), 40))
			}
		}
	})
	waitFor(t, ctx, "sentinels to see the replica and each other", func() bool {
		for _, cl := range clients {
			info, err := cl.Info(ctx, "sentinel").Result()
			if err != nil || !strings.Contains(info, "slaves=1,sentinels=3") {
				return false
			}
		}
		return true
	})
	return s
}

// lastLines returns the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

func splitAddr(t testing.TB, addr string) (host, port string) {
	t.Helper()
	i := strings.LastIndexByte(addr, ':')
	if i < 0 {
		t.Fatalf("testredis: bad address %q", addr)
	}
	return addr[:i], addr[i+1:]
}

// waitFor polls cond every 50 ms until it holds, failing the test when ctx
// ends first.
func waitFor(t testing.TB, ctx context.Context, what string, cond func() bool) {
	t.Helper()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("testredis: timed out waiting for %s", what)
		case <-time.After(50 * time.Millisecond):
		}
	}
}
