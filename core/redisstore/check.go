package redisstore

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/redis/go-redis/v9"
)

// Check is the startup check of a service: it reaches Redis, loads the
// store's scripts on every master, makes sure the client matches the
// servers, and decides twice on every master as Take does, on keys of its
// own ("<prefix>:{#check}:..." or, on a Cluster, "{#check<n>}", which no
// user key maps to), then deletes them as Reset does (on a Ring, whose
// shards a key cannot choose, and on a cluster client whose options give
// its slot map, on one master only). It returns nil when the store is
// ready to decide.
//
// An error wrapping ErrMisconfigured is a setup the store cannot work
// with, and retrying will not fix it; a service should refuse to start:
//
//   - a standalone or Sentinel client on a node of a Redis Cluster of
//     several masters, or of one master with replicas (the keys of the
//     other masters would answer MOVED, and every key once a replica takes
//     over; a cluster of one node that serves every slot, as an endpoint
//     that enforces slots behind one address presents itself, passes);
//   - a cluster client on a server without cluster support (unless the
//     client's options give its slot map, ClusterSlots: a Sentinel client
//     with RouteByLatency or RouteRandomly is one);
//   - a client pointed at a replica (the scripts write);
//   - a Sentinel client (MasterName set) whose Sentinels know no master of
//     that name, whose Addrs are Redis servers, not Sentinels, or whose
//     Sentinels refuse its SentinelUsername and SentinelPassword, the
//     question for the master's address (by their ACL), or a command of
//     the options' OnConnect (Check sees only the master of a Sentinel
//     client: CheckSentinels, given the client's options, finds Sentinels
//     of different setups among them);
//   - several addresses joined by commas in one address, or a URL
//     ("redis://host:6379") given as an address (New refuses both
//     already, except in a Sentinel client's MasterName setup, whose
//     Sentinel addresses only Check sees, as it dials them), or an
//     address that is otherwise no host:port (joined by spaces, no port),
//     or ClientOptions given no address at all;
//   - a Redis that rejects the scripts (before 7.0);
//   - credentials Redis refuses (a wrong Password or Username, or none
//     given to a Redis that wants one), a DB the server does not have,
//     or a Redis user whose ACL forbids the store's commands, a command
//     its scripts run, or reading and writing its keys (the errors carry
//     Redis's answer, never the password);
//   - a command the store or its scripts need that the server renamed or
//     disabled (rename-command).
//
// Any other error means Redis could not be reached, answered late (the
// check honours ctx's deadline), or could not decide for now (an error
// wrapping ErrOutOfMemory: Redis is full; or one carrying Redis's LOADING
// answer: it is loading its dataset after a restart, and the check passes
// once it is done; or its BUSY answer: it runs a script or function of
// someone else's past busy-reply-threshold, and HELLO, which it still
// answers, shows neither a replica nor, under a cluster client, a server
// without cluster support). A service may start anyway: each
// decision then meets the store error and the limiter's fail policy, and
// the store heals on its own when Redis comes back.
//
//	if err := store.Check(ctx); errors.Is(err, redisstore.ErrMisconfigured) {
//		log.Fatal(err)
//	} else if err != nil {
//		log.Printf("redis unreachable at startup, failing open until it is back: %v", err)
//	}
func (s *Store) Check(ctx context.Context) error {
	if err := checkAddrs(s.client); err != nil {
		return opError("check", err)
	}
	var err error
	switch c := s.client.(type) {
	case *redis.ClusterClient:
		if c.Options().ClusterSlots != nil {
			// Its slot map comes from the options, not from the servers,
			// which need no cluster support: a Sentinel client with
			// RouteByLatency or RouteRandomly, or servers listed by hand.
			err = checkMasters(ctx, c)
			if err == nil {
				err = s.probe(ctx, probeTag) // on one of the masters
			}
			break
		}
		err = checkCluster(ctx, c)
		if err == nil {
			err = s.probeMasters(ctx, c)
		}
	case *redis.Ring:
		err = c.ForEachShard(ctx, func(ctx context.Context, n *redis.Client) error {
			return checkNode(ctx, n, false)
		})
		if err == nil {
			err = s.probe(ctx, probeTag) // on one of the shards
		}
	default:
		err = checkNode(ctx, s.client, false)
		if err == nil {
			err = s.probe(ctx, probeTag)
		}
	}
	if err != nil {
		return opError("check", classify(err))
	}
	return nil
}

// checkAddrs rejects an address that holds several comma-joined ones
// (go-redis takes it as one host name and fails on every call) and a URL
// ("redis://host:6379", which go-redis's Addrs do not parse), or one
// with credentials ("user:password@host:6379"). A URL is named by its
// scheme only, and an address with credentials by its place: they may
// carry a password.
func checkAddrs(client redis.UniversalClient) error {
	var addrs []string
	socket := false // the address is a Unix socket's path, not host:port
	switch c := client.(type) {
	case *redis.Client:
		addrs = []string{c.Options().Addr}
		socket = c.Options().Network == "unix"
	case *redis.ClusterClient:
		addrs = c.Options().Addrs
	case *redis.Ring:
		for _, a := range c.Options().Addrs {
			addrs = append(addrs, a)
		}
	}
	for i, a := range addrs {
		if scheme, _, ok := strings.Cut(a, "://"); ok {
			return fmt.Errorf("%w: address %d is a URL (%s://...), not host:port: pass host:port, or make the client's options with redis.ParseURL", ErrMisconfigured, i, scheme)
		}
		if !socket && strings.Index(a, "@") > 0 {
			// "user:password@host:6379": the dialer's error would quote
			// it. (A Unix socket's path, relative or not, or its abstract
			// name "@name", may hold an '@'.)
			return fmt.Errorf("%w: address %d holds a user name or password (user:password@host), not host:port: pass host:port, and set the options' Username and Password", ErrMisconfigured, i)
		}
		if strings.Contains(a, ",") {
			return fmt.Errorf("%w: address %q holds several addresses: pass each as its own element of Addrs", ErrMisconfigured, a)
		}
	}
	return nil
}

// badAddr marks err with ErrMisconfigured when the client failed to dial
// because an address it was given is no host:port: several joined by
// commas or spaces (a list from one environment variable), or one with no
// port. checkAddrs finds the commas in the addresses a client shows; a
// Sentinel client shows none, so its Sentinels' addresses are found here,
// when they are dialled.
func badAddr(err error) error {
	var addr *net.AddrError
	var dns *net.DNSError
	if errors.Is(err, ErrMisconfigured) ||
		!errors.As(err, &addr) && !(errors.As(err, &dns) && strings.ContainsAny(dns.Name, ", ")) {
		return err
	}
	return fmt.Errorf("%w: an address is not one host:port (a URL, or several joined by commas? pass each host:port as its own element of Addrs): %w", ErrMisconfigured, err)
}

// checkCluster loads the slot map (a server without cluster support
// refuses it) and checks every master.
func checkCluster(ctx context.Context, c *redis.ClusterClient) error {
	if err := c.ClusterShards(ctx).Err(); err != nil {
		if d := denied(err); d != nil {
			return d
		}
		if isReply(err) && !unready(err) {
			return fmt.Errorf("%w: %s: %w", ErrMisconfigured, noClusterNode, err)
		}
		if redis.HasErrorPrefix(err, "BUSY ") {
			return busyCluster(ctx, c, err)
		}
		return err
	}
	c.ReloadState(ctx)
	return checkMasters(ctx, c)
}

// checkMasters checks every master of c, naming the one that fails.
func checkMasters(ctx context.Context, c *redis.ClusterClient) error {
	return c.ForEachMaster(ctx, func(ctx context.Context, n *redis.Client) error {
		if err := checkNode(ctx, n, true); err != nil {
			return within(n.Options().Addr, err)
		}
		return nil
	})
}

// checkNode checks one server that the client uses as a master: not a
// cluster node unless it is reached through a cluster client (viaCluster),
// not a replica, and holding the scripts (loaded here, unless the server
// does not let the client load them).
func checkNode(ctx context.Context, c redis.Cmdable, viaCluster bool) error {
	info, err := c.Info(ctx, "cluster", "replication").Result()
	if d := sentinelSetup(err); d != nil {
		return d
	}
	if redis.HasErrorPrefix(err, "NOPERM") || unknownCommand(err) {
		// The store does not need INFO: without it, Check cannot tell a
		// cluster node or a replica here (a call to one fails with
		// MOVED or READONLY, which the store reports as it meets them).
		info, err = "", nil
	}
	if redis.HasErrorPrefix(err, "BUSY ") {
		return busyNode(ctx, c, err)
	}
	if err != nil {
		return err
	}
	if infoField(info, "cluster_enabled") == "1" && !viaCluster && !oneMaster(ctx, c, info) {
		return fmt.Errorf("%w: the server is a Redis Cluster node but the client is not a cluster client: "+
			"keys of the other masters would answer MOVED, and every key once a replica takes over (give every master's address, or use redis.NewClusterClient)", ErrMisconfigured)
	}
	if infoField(info, "role") == "slave" {
		return fmt.Errorf("%w: the server is a replica; the store writes, so it needs the master", ErrMisconfigured)
	}
	for _, sc := range scripts {
		sha, err := c.ScriptLoad(ctx, sc.src.(string)).Result()
		if redis.HasErrorPrefix(err, "NOPERM") || unknownCommand(err) {
			// Nor SCRIPT LOAD: a call's EVALSHA falls back to EVAL, which
			// caches the script. The probe finds whether those may run.
			return nil
		}
		if err != nil {
			if d := denied(err); d != nil {
				return d
			}
			if isReply(err) && !unready(err) {
				return fmt.Errorf("%w: the server refused the store's script (Redis 7.0 or later is needed): %w", ErrMisconfigured, err)
			}
			return fmt.Errorf("load script: %w", err)
		}
		if sha != sc.sha {
			return fmt.Errorf("%w: the server hashed the script to %s, not %s", ErrMisconfigured, sha, sc.sha)
		}
	}
	return nil
}

// oneMaster reports whether one master with no replica serves every slot
// of the cluster that the node c belongs to, as CLUSTER SLOTS has it (and
// c's INFO replication, info: CLUSTER SLOTS leaves out a replica that
// holds no data yet): a cluster of one node, as an endpoint that enforces
// slots behind one address presents itself. A non-cluster client works
// there, since every call of the store keeps to one slot once Redis says
// it must (see sendSlotted). With a replica it would not: once the
// replica takes over, every key answers MOVED, which only a cluster
// client follows.
func oneMaster(ctx context.Context, c redis.Cmdable, info string) bool {
	if n := infoField(info, "connected_slaves"); n != "" && n != "0" {
		return false
	}
	ranges, err := c.ClusterSlots(ctx).Result()
	if err != nil || len(ranges) == 0 {
		return false
	}
	served := 0
	master := ranges[0].Nodes
	for _, r := range ranges {
		if len(r.Nodes) != 1 || len(master) == 0 || r.Nodes[0].ID != master[0].ID || r.Nodes[0].Addr != master[0].Addr {
			return false
		}
		served += r.End - r.Start + 1
	}
	return served == slots
}

// infoField returns the value of "name:value" in an INFO reply.
func infoField(info, name string) string {
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), name+":"); ok {
			return v
		}
	}
	return ""
}

// unready reports whether err is the answer of a server that cannot serve
// a command for now, however it is set up: one that a later attempt can
// get past (see retryable: LOADING, from a server loading its dataset
// after a restart, say), or BUSY, from a server running a script or a
// function of someone else's past busy-reply-threshold, which it answers
// to nearly every command until that ends or is killed.
func unready(err error) bool {
	return retryable(err) || redis.HasErrorPrefix(err, "BUSY ")
}

// isReply reports whether err is an error answer from Redis, not a
// network failure.
func isReply(err error) bool {
	var r redis.Error
	return errors.As(err, &r)
}
