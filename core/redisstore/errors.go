package redisstore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

var (
	// ErrMisconfigured is wrapped by the errors of a store whose client does
	// not match its Redis: a standalone client on a node of a Redis Cluster
	// of several masters, or of one master with replicas (keys of the other
	// masters answer MOVED, and every key once a replica takes over; one
	// node that serves every slot is no mistake), a comma-joined address
	// list given as one address (a Sentinel's too), options from ClientOptions
	// left with no address, a client on a replica, a cluster client on a
	// server without cluster support, a Redis too old for the scripts,
	// credentials Redis refuses (WRONGPASS, NOAUTH), a DB the server does
	// not have, a Redis user whose ACL forbids a command or a key the store
	// uses (NOPERM), a command the server renamed or disabled
	// (rename-command), a Sentinel client whose Sentinels know no master of
	// its MasterName, refuse its SentinelPassword or are Redis servers
	// instead. Check reports it at startup; a MOVED or ASK answer to a
	// non-cluster client (at a call's first attempt or a retried one), the
	// answer of a server without cluster support to a cluster client, one
	// of those refusals, or a dial that fails because an address is no
	// host:port, at run time is reported
	// with it too, so it reads as a configuration error and not as an
	// outage. It does not go away by retrying: fix the client's options
	// (or the user's ACL on the server).
	ErrMisconfigured = errors.New("redisstore: Redis is not set up as the client expects")

	// ErrOutOfMemory is wrapped by the error of a call that Redis refused
	// because it is over its maxmemory and may not evict (maxmemory-policy
	// noeviction, or nothing left to evict). The script was refused before
	// it ran, so nothing was charged: the call is all-or-nothing even then.
	ErrOutOfMemory = errors.New("redisstore: Redis is out of memory")

	// ErrClientPanicked is wrapped by the error of a call during which the
	// Redis client panicked (a hook added to it, most likely) on a goroutine
	// of the store: a batch's, or the one a call with a deadline waits on
	// when the client does not honour deadlines (ContextTimeoutEnabled).
	// Nothing would recover such a panic, and it would end the process; the
	// store recovers it, logs it with its stack at Error, and fails the
	// calls it held with this error, which keeps the panic's value (and
	// matches it, if it is an error). The client may have sent the calls
	// first, so they may have been charged. A panic on the caller's own
	// goroutine (a call sent alone otherwise) is left to the caller, as an
	// HTTP server recovers a handler's.
	ErrClientPanicked = errors.New("redisstore: the Redis client panicked")
)

// panicked returns the error of the calls a goroutine of the store held
// when the client panicked with p (see ErrClientPanicked), and logs the
// panic with the goroutine's stack. Call it from the deferred function
// that recovered p.
func panicked(p any) error {
	slog.Error("redisstore: the Redis client panicked on a goroutine of the store; the calls it held fail",
		"panic", fmt.Sprint(p), "stack", string(debug.Stack()))
	errs := []error{ErrClientPanicked}
	if err, ok := p.(error); ok {
		errs = append(errs, err)
	}
	return &textError{fmt.Sprintf("%s (the call may have been charged): %v", ErrClientPanicked, p), errs}
}

// textError is an error with a text of its own that matches what the
// errors it wraps match.
type textError struct {
	text string
	errs []error
}

func (e *textError) Error() string   { return e.text }
func (e *textError) Unwrap() []error { return e.errs }

// opError returns err as the error of the store's operation op:
// "redisstore: <op>: <err>". The exported errors' texts start with
// "redisstore: " so that they name the package when printed alone; that
// start is dropped here, so the package is named once.
func opError(op string, err error) error {
	return within("redisstore: "+op, err)
}

// within returns err with where in front of its text ("<where>: <err>"),
// dropping the package name err's text may start with (see opError).
func within(where string, err error) error {
	return &textError{where + ": " + bare(err), []error{err}}
}

// bare returns err's text without the package name it may start with.
func bare(err error) string {
	return strings.TrimPrefix(err.Error(), "redisstore: ")
}

// classify wraps the Redis answers the package gives a name to.
func classify(err error) error {
	if err == nil {
		return nil
	}
	if d := denied(err); d != nil {
		return d
	}
	switch {
	case errors.Is(err, ErrMisconfigured) || errors.Is(err, ErrOutOfMemory):
		return err // classified already
	case redis.HasErrorPrefix(err, "OOM"):
		return fmt.Errorf("%w: %w", ErrOutOfMemory, err)
	case redis.HasErrorPrefix(err, "This instance has cluster support disabled"):
		// A cluster client's answer to CLUSTER SLOTS, which it asks
		// before each call until it has a slot map: it never gets one.
		return fmt.Errorf("%w: %s: %w", ErrMisconfigured, noClusterNode, err)
	}
	return badAddr(err)
}

// noClusterNode names a cluster client on a server without cluster
// support.
const noClusterNode = "a cluster client, but the server is no cluster node"

// denied returns err marked with ErrMisconfigured when it is Redis
// refusing the client's credentials (WRONGPASS, NOAUTH), its database
// number, or, by its ACL, a command or a key the store uses (NOPERM), or
// having no such command, or a Sentinel setup mistake (sentinelSetup); nil
// otherwise. Redis's answers do not name the password, and the text of the
// error does not name the key.
func denied(err error) error {
	// First: a Sentinel's refusal of the credentials comes marked
	// already, as the master's (see loadScripts).
	if d := sentinelSetup(err); d != nil {
		return d
	}
	switch {
	case errors.Is(err, ErrMisconfigured):
		return nil // classified already
	case redis.HasErrorPrefix(err, "WRONGPASS"), redis.HasErrorPrefix(err, "NOAUTH"):
		return fmt.Errorf("%w: Redis refused the client's credentials (its options' Username and Password): %w", ErrMisconfigured, err)
	case redis.HasErrorPrefix(err, "NOPERM"), isReply(err) && aclInScript(err.Error()):
		return fmt.Errorf("%w: the Redis user may not run a command the store needs or use its keys (see ACL in docs/redis.md): %w", ErrMisconfigured, err)
	case redis.HasErrorPrefix(err, "DB index is out of range"):
		return fmt.Errorf("%w: the client's DB is not one of the server's databases: %w", ErrMisconfigured, err)
	case unknownCommand(err):
		// Redis echoes the command's first arguments, the keys among
		// them: the text keeps only the command's name.
		return &textError{ErrMisconfigured.Error() + ": the server has no command the store needs (renamed or disabled with rename-command?): " + commandOnly(err.Error()),
			[]error{ErrMisconfigured, err}}
	}
	return nil
}

// sentinelSetup returns err marked with ErrMisconfigured when it is a
// Sentinel client (MasterName set) failing to learn its master's address
// for a setup mistake, nil otherwise: a Sentinel that knows no master of
// that name (it answers nil), or an address among the Sentinels' that is
// a Redis server (it has no SENTINEL command), or Sentinels that refuse
// the client's credentials for them, or whose ACL refuses their user
// (SentinelUsername) the command that asks for the master's address, or
// that refuse a command of the options' OnConnect (go-redis runs it on
// its connections to the Sentinels too; a Sentinel has no SELECT, say).
// go-redis reports these as "all sentinels ... are unreachable", which
// reads as an outage (or as a renamed command, or as the master refusing
// Username and Password, or the master's ACL refusing its user).
// The error's text keeps Redis's answer, which never names a password.
func sentinelSetup(err error) error {
	if err == nil || !strings.Contains(err.Error(), "all sentinels specified in configuration are unreachable") {
		return nil
	}
	var answer redis.Error
	switch {
	case strings.Contains(err.Error(), sentinelCredentials):
		return nil // named already
	case (redis.HasErrorPrefix(err, "NOAUTH") || redis.HasErrorPrefix(err, "WRONGPASS")) && errors.As(err, &answer):
		return &textError{ErrMisconfigured.Error() + ": " + sentinelCredentials + ": " + answer.Error(), []error{ErrMisconfigured, err}}
	case errors.Is(err, ErrMisconfigured):
		return nil // named already
	case redis.HasErrorPrefix(err, "NOPERM") && errors.As(err, &answer):
		// The Sentinels' ACL, not the master's: the client never reached
		// the master.
		return &textError{ErrMisconfigured.Error() + ": " + sentinelNoPermText(answer.Error()) + ": " + answer.Error(), []error{ErrMisconfigured, err}}
	case errors.Is(err, redis.Nil):
		return fmt.Errorf("%w: a Sentinel knows no master of the client's MasterName (a typo, or another setup's Sentinels?): %w", ErrMisconfigured, err)
	case unknownCommand(err) && strings.Contains(strings.ToLower(err.Error()), "command 'sentinel'"):
		return fmt.Errorf("%w: an address of the client's Addrs is a Redis server, not a Sentinel (with MasterName set, Addrs are the Sentinels' addresses): %w", ErrMisconfigured, err)
	case unknownCommand(err) && errors.As(err, &answer):
		return &textError{ErrMisconfigured.Error() + ": " + sentinelOnConnect + ": " + commandOnly(answer.Error()), []error{ErrMisconfigured, err}}
	}
	return nil
}

// sentinelNoPerm names what a Sentinel's ACL refused the client's user
// for the Sentinels.
const sentinelNoPerm = "the Sentinels' user (SentinelUsername) may not ask for the master's address, which the client needs"

// sentinelOnConnect names a command that a Sentinel refused, or does not
// have, other than those the client asks a Sentinel: one of the options'
// OnConnect, which go-redis runs on its connections to the Sentinels too.
const sentinelOnConnect = "a Sentinel refused a command of the options' OnConnect, which go-redis runs on its connections " +
	"to the Sentinels too (a command a Sentinel does not have, or that SentinelUsername may not run)"

// sentinelNoPermText names what a Sentinel's NOPERM answer refused: the
// client's question (SENTINEL GET-MASTER-ADDR-BY-NAME; before Redis 7 the
// answer names SENTINEL alone), or another command, which only the
// options' OnConnect sends.
func sentinelNoPermText(answer string) string {
	a := strings.ToLower(answer)
	if strings.Contains(a, "get-master-addr-by-name") || strings.Contains(a, "'sentinel'") {
		return sentinelNoPerm
	}
	return sentinelOnConnect
}

// commandOnly returns Redis's answer that it has no such command without
// the arguments it echoes: they may hold keys, or an OnConnect's secret.
func commandOnly(answer string) string {
	msg, _, _ := strings.Cut(answer, ", with args beginning with:")
	return msg
}

// sentinelCredentials names the options of a Sentinel client that hold
// its credentials for the Sentinels, told apart from the master's.
const sentinelCredentials = "a Sentinel refused the client's credentials for the Sentinels " +
	"(its options' SentinelUsername and SentinelPassword; Username and Password are the master's)"

// aclInScript reports whether text is Redis's answer that a command a
// script ran was refused by the user's ACL: "The user executing the script
// can't ..." before Redis 7.2, "ACL failure in script: ..." from 7.2 on
// (and in Valkey).
func aclInScript(text string) bool {
	return strings.Contains(text, "The user executing the script can't") || strings.Contains(text, "ACL failure in script")
}

// unknownCommand reports whether err is Redis's answer that it has no
// such command, to the client or to a script: renamed or disabled
// (rename-command).
func unknownCommand(err error) bool {
	return redis.HasErrorPrefix(err, "unknown command") || redis.HasErrorPrefix(err, "Unknown Redis command called from script")
}

// retryable reports whether err is an answer that a later attempt can get
// past while the servers change: a redirect the cluster client did not
// finish within its MaxRedirects (ASK, MOVED while it learns the new slot
// map), TRYAGAIN (a multi-key call while the slot's keys are being
// migrated), CLUSTERDOWN (a master lost and its replica not yet promoted),
// READONLY or MASTERDOWN (a master just demoted by a failover; the client
// drops that connection and follows the new master), or LOADING.
func retryable(err error) bool {
	for _, p := range []string{"ASK", "MOVED", "TRYAGAIN", "CLUSTERDOWN", "READONLY", "MASTERDOWN", "LOADING"} {
		if redis.HasErrorPrefix(err, p) {
			return true
		}
	}
	return false
}

// Retry pacing of those answers (see retryable): the wait doubles from
// retryMin to retryMax, and a call whose context has no deadline gives up
// after retryBudget.
const (
	retryMin    = time.Millisecond
	retryMax    = 50 * time.Millisecond
	retryBudget = 500 * time.Millisecond
)

// runRetried runs sc for args, and runs it again on a retryable answer
// (see retry). A script is atomic and runs only where all its keys are, so
// an answer that asks to retry means nothing was charged. key is the first
// key of args ("" for a batch script, which has no slot).
func (s *Store) runRetried(ctx context.Context, key string, sc *script, args []any) (string, error) {
	reply, err := sc.run(ctx, s.client, args)
	if err == nil {
		return reply, nil
	}
	err = s.retry(ctx, key, err, func() error {
		reply, err = sc.run(ctx, s.client, args)
		return err
	})
	return reply, err
}

// retry takes err, the failure of a command's first attempt on key, and
// makes further attempts with again while the answer is retryable (see
// retryable), until one succeeds, ctx is done or the retry budget is
// spent. It returns the last attempt's error, classified; when the
// retries end on an answer still worth retrying, for want of time, the
// error says why (see retriesEnded). A MOVED or ASK answer to a client
// that cannot follow redirects is a configuration error, never retried,
// at the first attempt or a later one. An answer that key's slot is not
// served is noted at once (see Domain), while the attempts go on.
func (s *Store) retry(ctx context.Context, key string, err error, again func() error) error {
	if !retryable(err) {
		// CROSSSLOT, to a standalone batch, is the endpoint enforcing
		// slots: sendScript sends the batch again, one slot per call.
		s.lostNode(err)
		return classify(err)
	}
	start := time.Now()
	giveUp := start.Add(retryBudget)
	if d, ok := ctx.Deadline(); ok {
		giveUp = d
	}
	wait := retryMin
	for retryable(err) && !s.misdirected(err) {
		if !time.Now().Add(wait).Before(giveUp) {
			return retriesEnded(ctx, err, start)
		}
		if s.cluster {
			s.noteSlot(key, err)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return retriesEnded(ctx, err, start)
		case <-t.C:
		}
		wait = min(2*wait, retryMax)
		err = again()
	}
	return s.settle(err)
}

// settle returns the error a call ends with on err, an answer that no
// retry gets past (or no answer): a MOVED or ASK to a client that cannot
// follow it is a configuration error; after a failed round trip a cluster
// client reloads its slot map (see lostNode); err is classified.
func (s *Store) settle(err error) error {
	if s.misdirected(err) {
		return fmt.Errorf("%w: a node of a Redis Cluster answered a non-cluster client (use a cluster client, e.g. several addresses): %w", ErrMisconfigured, err)
	}
	s.lostNode(err)
	return classify(err)
}

// retriesEnded returns the error of a call whose retries (see retry),
// begun at start, end on err, an answer still worth retrying (so Redis ran
// nothing), because ctx is done or its deadline would pass before the next
// attempt: the error matches ctx's error, context.DeadlineExceeded for a
// deadline not quite reached, or, for a ctx with no deadline whose retry
// budget is spent, os.ErrDeadlineExceeded; and it matches err, classified.
// The caller can thus tell that time ran out, and what Redis answered.
// Redis did answer, so no node was lost and there is no slot map to
// reload (see lostNode).
func retriesEnded(ctx context.Context, err error, start time.Time) error {
	err = classify(err)
	took := time.Since(start).Round(time.Millisecond)
	cause := ctx.Err()
	if _, ok := ctx.Deadline(); cause == nil && !ok {
		return &textError{fmt.Sprintf("retried for %v, the most a call with no deadline waits: %s", took, bare(err)),
			[]error{os.ErrDeadlineExceeded, err}}
	}
	if cause == nil {
		cause = context.DeadlineExceeded
	}
	return &textError{fmt.Sprintf("%v: retried for %v: %s", cause, took, bare(err)), []error{cause, err}}
}

// misdirected reports whether err is a redirect (MOVED or ASK) answered
// to a client that cannot follow it: a non-cluster client on a node of a
// Redis Cluster. That is a configuration error at whichever attempt it
// comes, also after answers worth retrying (CLUSTERDOWN or LOADING while
// the cluster forms): retrying it cannot succeed.
func (s *Store) misdirected(err error) bool {
	return !s.cluster && (redis.HasErrorPrefix(err, "MOVED") || redis.HasErrorPrefix(err, "ASK"))
}

// lostNode asks a cluster client to reload its slot map after a call
// failed without an answer from Redis (a node refused the connection or
// timed out). go-redis otherwise keeps sending a dead master's slots to it
// until its periodic reload (a minute), long after a replica took over and
// no MOVED ever comes to correct it. The reload runs in the background,
// at most one at a time with a pause of 200 ms between.
func (s *Store) lostNode(err error) {
	if err == nil || !s.cluster || isReply(err) || errors.Is(err, context.Canceled) {
		return
	}
	s.client.(*redis.ClusterClient).ReloadState(context.Background())
}

// unreadable returns err, the failure to read a script's reply, saying
// that Redis ran the script: the call may have been charged, as when the
// reply is lost. Like a lost reply, it is no answer from Redis (isReply),
// and classify leaves it as it is.
func unreadable(err error) error {
	return fmt.Errorf("%w (Redis ran the script: the call may have been charged)", err)
}

// logPanic recovers a panic of the client on a goroutine of the store that
// answers no call (one that reads the cluster's slots), and logs it (see
// panicked): the process goes on, and so does the store.
func logPanic() {
	if p := recover(); p != nil {
		_ = panicked(p)
	}
}
