package redisstore

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// CheckSentinels checks the Sentinels of a Sentinel client's options
// (MasterName set, Addrs the Sentinels), which Check cannot see: a
// Sentinel client shows the store only its master. Call it at startup
// beside Check, with the options the client was made from; for a client
// made by redis.NewFailoverClient, call CheckFailoverSentinels.
//
// It asks every Sentinel which master it follows under MasterName, as the
// client asks (SENTINEL GET-MASTER-ADDR-BY-NAME), and that master's
// configuration epoch (SENTINEL MASTER), each over a connection made as
// go-redis makes its own to that Sentinel: the options' Dialer, TLSConfig,
// SentinelUsername, SentinelPassword, OnConnect (go-redis runs it on its
// connections to the Sentinels too; ClientOptions' loads no script on a
// Sentinel, which has none) and timeouts. An error wrapping
// ErrMisconfigured is a setup mistake: a Sentinel that answers but knows
// no master of that name, a Redis server among the Sentinels, a Sentinel
// that refuses SentinelUsername and SentinelPassword, or whose ACL does
// not let that user ask for the master's address, a Sentinel that refuses
// a command of OnConnect (one it does not have, such as SELECT, or that
// its ACL does not let that user run), an address that is no host:port,
// or Sentinels that name different masters in the same configuration
// epoch, which happens only when they belong to different setups
// (sentinels monitoring different masters under one name). The
// client takes whichever Sentinel answers first, so two services, or one
// after a reconnect, would count on different masters and each admit the
// whole limit.
//
// Sentinels that name different masters in different epochs are in the
// middle of a failover, or are different setups that have failed over
// differently: the error then does not wrap ErrMisconfigured; run the
// check again once the failover is over. A Sentinel user that may not run
// SENTINEL MASTER (which tells the epoch) passes; its Sentinels' epochs
// are unknown, so different masters among them are that error too. A
// Sentinel that cannot be reached is left out (one Sentinel down is no
// mistake); if none answers, the error is an outage. The check lasts at
// most until ctx is done, even when the options' Dialer or OnConnect does
// not honour ctx (a Sentinel still unanswered then is left out as one
// that cannot be reached); with no deadline on ctx, a Sentinel that does
// not answer is given up after the options' timeouts (go-redis's dial
// retries included). Options without MasterName are no Sentinel setup,
// and pass.
func CheckSentinels(ctx context.Context, opts *redis.UniversalOptions) error {
	if opts == nil || opts.MasterName == "" {
		return nil
	}
	if len(opts.Addrs) == 0 {
		// Failover would put in go-redis's default Sentinel address.
		return opError("check sentinels", fmt.Errorf("%w: MasterName %q is set but Addrs holds no Sentinel address", ErrMisconfigured, opts.MasterName))
	}
	o := *opts // Failover writes to its receiver when Addrs is empty
	return CheckFailoverSentinels(ctx, o.Failover())
}

// CheckFailoverSentinels is CheckSentinels for the options of a client
// made by redis.NewFailoverClient or redis.NewFailoverClusterClient: it
// asks the Sentinels of SentinelAddrs about MasterName. Options without
// MasterName pass.
func CheckFailoverSentinels(ctx context.Context, opts *redis.FailoverOptions) error {
	if err := checkSentinels(ctx, opts); err != nil {
		return opError("check sentinels", err)
	}
	return nil
}

// sentinelConn returns the options of a client of the Sentinel at addr,
// as go-redis makes them from opts (its OnConnect included: a Sentinel
// that wants a password the options do not hold may be given it there),
// with one connection, no retry, and ctx's deadline applied.
func sentinelConn(opts *redis.FailoverOptions, addr string) *redis.Options {
	return &redis.Options{
		Addr: addr, ClientName: opts.ClientName, Dialer: opts.Dialer, OnConnect: opts.OnConnect,
		Username: opts.SentinelUsername, Password: opts.SentinelPassword, TLSConfig: opts.TLSConfig,
		DialTimeout: opts.DialTimeout, DialerRetries: opts.DialerRetries, DialerRetryTimeout: opts.DialerRetryTimeout,
		DialerRetryBackoff: opts.DialerRetryBackoff,
		ReadTimeout:        opts.ReadTimeout, WriteTimeout: opts.WriteTimeout,
		DisableIdentity: opts.DisableIdentity, IdentitySuffix: opts.IdentitySuffix,
		//lint:ignore SA1019 deprecated, but go-redis still honours it on its own Sentinel connections
		DisableIndentity:         opts.DisableIndentity,
		MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled},
		ContextTimeoutEnabled:    true, MaxRetries: -1, PoolSize: 1,
	}
}

// checkSentinels is CheckFailoverSentinels without the operation's name.
func checkSentinels(ctx context.Context, opts *redis.FailoverOptions) error {
	if opts == nil || opts.MasterName == "" {
		return nil
	}
	if len(opts.SentinelAddrs) == 0 {
		return fmt.Errorf("%w: MasterName %q is set but SentinelAddrs holds no Sentinel address", ErrMisconfigured, opts.MasterName)
	}
	answers := askSentinels(ctx, opts)
	var down []error
	var seen []sentinelAnswer
	for _, a := range answers {
		switch {
		case a.err == nil:
			seen = append(seen, a)
		case errors.Is(a.err, redis.Nil) || isReply(a.err) && strings.Contains(a.err.Error(), "No such master"):
			return fmt.Errorf("%w: Sentinel %s knows no master named %q (a typo, or another setup's Sentinel?)", ErrMisconfigured, a.sentinel, opts.MasterName)
		case unknownCommand(a.err) && strings.Contains(strings.ToLower(a.err.Error()), "command 'sentinel'"):
			return fmt.Errorf("%w: %s is a Redis server, not a Sentinel (with MasterName set, the addresses given are the Sentinels'): %w", ErrMisconfigured, a.sentinel, a.err)
		case unknownCommand(a.err):
			// Another unknown command is the options' OnConnect's, which
			// fails go-redis's connections to the Sentinels too.
			var answer redis.Error
			errors.As(a.err, &answer)
			return &textError{ErrMisconfigured.Error() + ": Sentinel " + a.sentinel + ": " + sentinelOnConnect + ": " + commandOnly(answer.Error()), []error{ErrMisconfigured, a.err}}
		case redis.HasErrorPrefix(a.err, "NOPERM"):
			var answer redis.Error
			errors.As(a.err, &answer)
			return fmt.Errorf("%w: %s: %w", ErrMisconfigured, sentinelNoPermText(answer.Error()), a.err)
		case redis.HasErrorPrefix(a.err, "NOAUTH") || redis.HasErrorPrefix(a.err, "WRONGPASS"):
			// Redis's answer alone, never the password: the OnConnect of
			// ClientOptions names the master's options for a NOAUTH.
			var answer redis.Error
			errors.As(a.err, &answer)
			return &textError{ErrMisconfigured.Error() + ": " + sentinelCredentials + ": " + answer.Error(), []error{ErrMisconfigured, a.err}}
		default:
			if d := denied(a.err); d != nil {
				return within("Sentinel "+a.sentinel, d)
			}
			if b := badAddr(a.err); errors.Is(b, ErrMisconfigured) {
				return fmt.Errorf("sentinel address %q: %w", a.sentinel, b)
			}
			down = append(down, fmt.Errorf("sentinel %s: %w", a.sentinel, a.err))
		}
	}
	if len(seen) == 0 {
		return fmt.Errorf("no Sentinel answered: %w", errors.Join(down...))
	}
	for _, a := range seen[1:] {
		b := seen[0]
		if a.master == b.master {
			continue
		}
		if a.epoch == b.epoch && a.epoch != unknownEpoch {
			return fmt.Errorf("%w: Sentinels %s and %s name different masters for %q (%s and %s) in the same epoch: they belong to different setups, and the store would count on both",
				ErrMisconfigured, b.sentinel, a.sentinel, opts.MasterName, b.master, a.master)
		}
		return fmt.Errorf("the Sentinels %s and %s name different masters for %q (%s in epoch %s, %s in epoch %s): a failover in progress, or different setups; check again later",
			b.sentinel, a.sentinel, opts.MasterName, b.master, b.epoch, a.master, a.epoch)
	}
	return nil
}

// askSentinels asks every Sentinel of opts at once (see askSentinel) and
// returns their answers in the order of opts.SentinelAddrs, once all have
// answered or ctx is done: a Dialer or an OnConnect of the options that
// does not honour ctx (a password fetched with a context of its own, say)
// may hang, and the check still ends with ctx. A Sentinel that has not
// answered by then has ctx's error, as one that cannot be reached; its
// goroutine ends when the hook returns.
func askSentinels(ctx context.Context, opts *redis.FailoverOptions) []sentinelAnswer {
	type answer struct {
		i int
		sentinelAnswer
	}
	n := len(opts.SentinelAddrs)
	ch := make(chan answer, n) // room for every answer: no sender waits
	for i, addr := range opts.SentinelAddrs {
		go func() {
			c := redis.NewSentinelClient(sentinelConn(opts, addr))
			defer c.Close()
			ch <- answer{i, askSentinel(ctx, c, addr, opts.MasterName)}
		}()
	}
	answers := make([]sentinelAnswer, n)
	answered := make([]bool, n)
	for range n {
		var a answer
		select {
		case a = <-ch:
		case <-ctx.Done():
			select {
			case a = <-ch: // an answer that came as ctx ended
			default:
				for i, addr := range opts.SentinelAddrs {
					if !answered[i] {
						answers[i] = sentinelAnswer{sentinel: addr, err: fmt.Errorf("no answer before the check's end: %w", ctx.Err())}
					}
				}
				return answers
			}
		}
		answers[a.i], answered[a.i] = a.sentinelAnswer, true
	}
	return answers
}

// sentinelAnswer is what one Sentinel said of the master it follows: its
// address and configuration epoch, or the error.
type sentinelAnswer struct {
	sentinel, master, epoch string
	err                     error
}

// unknownEpoch is the epoch of an answer from a Sentinel whose user may
// not run SENTINEL MASTER.
const unknownEpoch = "unknown"

// askSentinel asks the Sentinel c at addr which master it follows under
// name, as the client asks, with SENTINEL GET-MASTER-ADDR-BY-NAME (whose
// redis.Nil is a name the Sentinel does not know), then for that master's
// configuration epoch with SENTINEL MASTER. A user that may not run the
// second (an ACL that grants what the client runs, and no more) gets an
// answer of unknownEpoch; one that may not run the first gets its error,
// as the client does.
func askSentinel(ctx context.Context, c *redis.SentinelClient, addr, name string) sentinelAnswer {
	hp, err := c.GetMasterAddrByName(ctx, name).Result()
	if err != nil {
		return sentinelAnswer{sentinel: addr, err: err}
	}
	if len(hp) != 2 {
		return sentinelAnswer{sentinel: addr, err: fmt.Errorf("SENTINEL GET-MASTER-ADDR-BY-NAME answered %q, not a host and a port", hp)}
	}
	a := sentinelAnswer{sentinel: addr, master: net.JoinHostPort(hp[0], hp[1]), epoch: unknownEpoch}
	// A user that may not ask this, a failover between the two questions
	// or a failure to answer leave the epoch unknown: the Sentinel has
	// answered what the client needs.
	if m, err := c.Master(ctx, name).Result(); err == nil && net.JoinHostPort(m["ip"], m["port"]) == a.master {
		a.epoch = m["config-epoch"]
	}
	return a
}
