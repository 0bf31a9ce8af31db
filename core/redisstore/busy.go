package redisstore

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// A server running a script or function of someone else's past
// busy-reply-threshold answers BUSY to nearly every command, INFO and
// CLUSTER included, but still answers HELLO, which tells its mode
// (standalone, cluster) and role (master, replica). Check asks it then, so
// that a server that cannot decide for now still shows the setup mistakes
// it can be sure of: a replica, and a server without cluster support
// under a cluster client.

// doer is a client that sends any command: a *redis.Client.
type doer interface {
	Do(ctx context.Context, args ...any) *redis.Cmd
}

// helloFields returns the mode and role that the server of c names in its
// answer to HELLO with no argument (which keeps the connection's
// protocol), or "" for what it does not tell.
func helloFields(ctx context.Context, c doer) (mode, role string) {
	v, err := c.Do(ctx, "hello").Result()
	if err != nil {
		return "", ""
	}
	set := func(k, v any) {
		s, _ := v.(string)
		switch k {
		case "mode":
			mode = s
		case "role":
			role = s
		}
	}
	switch m := v.(type) {
	case map[any]any: // RESP3
		for k, v := range m {
			set(k, v)
		}
	case []any: // RESP2: name, value, ...
		for i := 0; i+1 < len(m); i += 2 {
			set(m[i], m[i+1])
		}
	}
	return mode, role
}

// busyNode returns the error of checkNode for a server c that answered
// busy, BUSY: a setup mistake if HELLO says it is a replica, busy
// otherwise.
func busyNode(ctx context.Context, c redis.Cmdable, busy error) error {
	d, ok := c.(doer)
	if !ok {
		return busy
	}
	if _, role := helloFields(ctx, d); role == "replica" {
		return fmt.Errorf("%w: the server is a replica; the store writes, so it needs the master (it answers BUSY, running a script of someone else's: %w)", ErrMisconfigured, busy)
	}
	return busy
}

// busyCluster returns the error of checkCluster for a cluster client c
// whose servers answered busy, BUSY, to CLUSTER SHARDS: a setup mistake
// if one of its seed servers says by HELLO that it runs without cluster
// support, busy otherwise. It asks over a connection made as the client
// makes its own to a node, without OnConnect (which would meet BUSY).
func busyCluster(ctx context.Context, c *redis.ClusterClient, busy error) error {
	o := c.Options()
	for _, addr := range o.Addrs {
		n := redis.NewClient(&redis.Options{
			Addr: addr, ClientName: o.ClientName, Dialer: o.Dialer, Protocol: o.Protocol,
			Username: o.Username, Password: o.Password, CredentialsProvider: o.CredentialsProvider,
			CredentialsProviderContext: o.CredentialsProviderContext, StreamingCredentialsProvider: o.StreamingCredentialsProvider,
			TLSConfig: o.TLSConfig, DialTimeout: o.DialTimeout, ReadTimeout: o.ReadTimeout, WriteTimeout: o.WriteTimeout,
			DisableIdentity:          true,
			MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled},
			ContextTimeoutEnabled:    true, MaxRetries: -1, PoolSize: 1,
		})
		mode, _ := helloFields(ctx, n)
		_ = n.Close()
		if mode == "standalone" {
			return fmt.Errorf("%w: %s (it answers BUSY, running a script of someone else's: %w)", ErrMisconfigured, noClusterNode, busy)
		}
		if mode != "" {
			return busy
		}
	}
	return busy
}
