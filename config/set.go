package config

import (
	"context"
	"crypto/sha256"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/internal/nilness"
)

// Option configures Load.
type Option func(*options)

type options struct {
	store    core.Store
	storeSet bool // WithStore was given, nil or not
	logger   *slog.Logger
	onReload func(error)
}

// WithStore sets the store every route's limiter counts on (without this
// option: a new memory store). It is kept across reloads, which is what
// keeps counts. A nil store, even one of a nil pointer type, fails Load
// (an error wrapping core.ErrInvalidConfig) rather than falling back to a
// memory store.
// Several processes of one service (replicas, Fiber's Prefork children)
// need a store they share, such as core/redisstore: on the default memory
// store each counts alone, and in a Prefork child fibermw refuses its
// requests.
func WithStore(s core.Store) Option {
	return func(o *options) { o.store, o.storeSet = s, true }
}

// WithLogger sets where reloads are logged (default slog.Default()): Info
// when a new configuration is applied, Error when a file is rejected, and
// Warn when Watch is given an interval under 10ms.
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// WithOnReload sets a callback run after every reload attempt that found
// new content: with nil when it was applied, with the error when it was
// rejected (the running configuration is kept). A rejected file put back
// to the running content (an edit undone) is news too: the callback gets
// nil, so an alert raised on the error can clear. Count the errors in a
// metric to alert on a broken file. The callback runs inside the reload:
// other reloads, and a Watch returning, wait for it, so it should not
// block.
func WithOnReload(f func(err error)) Option { return func(o *options) { o.onReload = f } }

// Set is a loaded configuration that can be reloaded while it is in use.
// It is safe for concurrent use.
type Set struct {
	path string
	opts options
	cur  atomic.Pointer[compiled]

	reads atomic.Uint64 // numbers the reads of the file, in the order they start

	mu         sync.Mutex // serialises what a reload does after its read
	lastRead   uint64     // the number of the read last acted on
	applied    [sha256.Size]byte
	lastFailed [sha256.Size]byte
	lastErr    error
	failed     bool
}

// Load reads and checks the file at path and builds every route's
// limiter. Any problem is an error that names the field, e.g.
// "config: limits.json: routes[2].policies[0].window: must be > 0".
func Load(path string, opts ...Option) (*Set, error) {
	s := &Set{path: path}
	for _, o := range opts {
		if o != nil {
			o(&s.opts)
		}
	}
	switch {
	case s.opts.storeSet && nilness.IsNil(s.opts.store):
		// A store variable never set, or a constructor's error ignored:
		// a memory store in its place would count per process.
		return nil, fmt.Errorf("%w: config: WithStore: nil store (leave the option out for a memory store)", core.ErrInvalidConfig)
	case s.opts.store == nil:
		s.opts.store = memory.New()
	}
	if s.opts.logger == nil {
		s.opts.logger = slog.Default()
	}
	data, err := readFile(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	c, err := s.build(data)
	if err != nil {
		return nil, err
	}
	s.cur.Store(c)
	s.applied = sha256.Sum256(data)
	return s, nil
}

// build parses and compiles data.
func (s *Set) build(data []byte) (*compiled, error) {
	f, err := decode(data)
	if err == nil {
		var c *compiled
		if c, err = compile(f, s.opts.store); err == nil {
			return c, nil
		}
	}
	return nil, fmt.Errorf("config: %s: %w", s.path, err)
}

// Options returns the middleware options that apply the configuration.
// Pass them to any adapter's New with a nil limiter:
//
//	mw, err := nethttp.New(nil, rules.Options()...)
//
// For each request they look its route up once, in the configuration
// running at that moment, and take its key, limiter and mode all from
// that one configuration: a reload never gives a request the key of one
// file and the limits or mode of another. A request that no route
// matches is not limited (it is reported with Outcome Skipped).
//
// Options of your own that set the key, the limiter or the mode combine
// with them as options always do, the later one winning, part by part: a
// ratewindow.WithKeyFunc, WithLimiterFunc or WithObserveOnlyFunc given
// after Options replaces that one part (the route still decides which
// requests are limited, and gives the other two), and one given before
// Options is replaced by it. WithObserveOnly(true) observes every request
// whatever the file says.
//
// The Options of a Set that Load did not make (a nil *Set) make New fail.
func (s *Set) Options() []ratewindow.Option {
	if !s.loaded() {
		return []ratewindow.Option{failNew}
	}
	return []ratewindow.Option{s.apply}
}

// Reload re-reads the file and applies it if its content changed. An
// invalid file (or one that cannot be read) changes nothing: the error is
// logged and given to the WithOnReload callback once per distinct
// content (or distinct read error), and returned by every call while the
// file stays broken.
//
// Reload blocks while its own read of the file blocks (a named pipe
// without a writer, a dead network file system), but never behind
// another Reload's read: calls read the file side by side, and what one
// read returns is never applied over what a read started after it
// returned.
func (s *Set) Reload() error { return s.reload(context.Background()) }

// reload is Reload on behalf of a caller that may stop caring: once ctx
// is done, what the read returns is neither applied nor reported.
func (s *Set) reload(ctx context.Context) error {
	if !s.loaded() {
		return errUnloaded
	}
	n := s.reads.Add(1)
	data, err := readFile(s.path)
	s.mu.Lock()
	defer s.mu.Unlock()
	if ctx.Err() != nil {
		return fmt.Errorf("config: reload of %s abandoned: %w", s.path, ctx.Err())
	}
	if n < s.lastRead {
		// A read started later has been acted on: this content may be
		// older than the running configuration.
		if s.failed {
			return s.lastErr
		}
		return nil
	}
	s.lastRead = n
	if err != nil {
		err = fmt.Errorf("config: %w", err)
		// News unless the last attempt failed to read the file the same
		// way: a missing file that becomes a directory is reported again.
		s.report(err, !s.failed || s.lastFailed != [sha256.Size]byte{} || s.lastErr.Error() != err.Error())
		s.failed, s.lastFailed, s.lastErr = true, [sha256.Size]byte{}, err
		return err
	}
	sum := sha256.Sum256(data)
	if sum == s.applied {
		if s.failed {
			// A broken edit undone: the running configuration is the
			// file's again, and a callback that raised an alert on the
			// error must hear that it is over.
			s.failed = false
			s.settled("ratewindow/config: file restored to the running configuration")
		}
		return nil
	}
	if s.failed && sum == s.lastFailed {
		return s.lastErr // already reported
	}
	c, err := s.build(data)
	if err != nil {
		s.report(err, true)
		s.failed, s.lastFailed, s.lastErr = true, sum, err
		return err
	}
	s.cur.Store(c)
	s.applied, s.failed = sum, false
	s.settled("ratewindow/config: applied")
	return nil
}

// settled logs msg and tells the WithOnReload callback, with nil, that
// the running configuration is the file's.
func (s *Set) settled(msg string) {
	s.opts.logger.Info(msg, "path", s.path)
	if s.opts.onReload != nil {
		s.opts.onReload(nil)
	}
}

// report logs and signals a rejected reload, if it is news.
func (s *Set) report(err error, news bool) {
	if !news {
		return
	}
	s.opts.logger.Error("ratewindow/config: reload rejected, keeping the running configuration", "path", s.path, "err", err)
	if s.opts.onReload != nil {
		s.opts.onReload(err)
	}
}

// Watch calls Reload every interval until ctx is done; run it in its own
// goroutine. The file is read and hashed on every tick, so edits in place,
// renames over it and symlink swaps (Kubernetes ConfigMaps) are all seen.
// A non-positive interval means one second; one under 10ms is taken as
// 10ms, with a warning logged, and each wait starts when the last read
// ends: an interval in the wrong unit (time.Duration(5), meant as
// seconds) must not make Watch read the file back to back and keep a CPU
// busy. Watch returns when ctx is
// done even if a read of the file hangs, and once it has returned it
// changes nothing: a hung read it left behind that returns later is
// dropped, neither applied nor reported. Watch of a Set that Load did not
// make (a nil *Set) returns at once: there is nothing to reload.
func (s *Set) Watch(ctx context.Context, interval time.Duration) {
	if !s.loaded() {
		return
	}
	switch {
	case interval <= 0:
		interval = time.Second
	case interval < minWatchInterval:
		s.opts.logger.Warn("ratewindow/config: watch interval too short, using the shortest one",
			"path", s.path, "interval", interval, "using", minWatchInterval)
		interval = minWatchInterval
	}
	t := time.NewTimer(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			// The reload runs apart so that a read that hangs (a named
			// pipe without a writer, a dead network file system) cannot
			// hold Watch past ctx: it is left to finish on its own, and
			// drops what it read, since ctx is done by then.
			done := make(chan struct{})
			go func() {
				defer close(done)
				_ = s.reload(ctx) // reported by reload
			}()
			select {
			case <-done:
			case <-ctx.Done():
				// A reload that checked ctx before it was done may be
				// applying now: wait for it, so that nothing changes
				// after Watch returns. Every later one sees ctx done.
				s.mu.Lock()
				s.mu.Unlock()
				return
			}
			t.Reset(interval)
		}
	}
}

// minWatchInterval is the shortest wait Watch makes between two reads of
// the file.
const minWatchInterval = 10 * time.Millisecond
