package fibermw

import (
	"errors"
	"fmt"

	"github.com/gofiber/fiber/v2"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/internal/middleware"
	"github.com/ratewindow/ratewindow/internal/options"
	"github.com/ratewindow/ratewindow/keyfuncs"
)

// errPerProcess is why a Prefork child refuses a limiter whose store keeps
// its counts in this process.
var errPerProcess = errors.New("fibermw: this is a Prefork child, one of several processes each with its own limiter, " +
	"and the limiter's store keeps its counts in this process (core/memory): every child would admit the full limit, " +
	"so a client would get it once per child; use a store the children share, such as core/redisstore, or turn Prefork off")

// errChosenPerProcess is the error of a request whose WithLimiterFunc
// function chose such a limiter: the request has no limiter it may use.
var errChosenPerProcess = fmt.Errorf("%w: %w", ratewindow.ErrNoLimiter, refused{fmt.Errorf("%w: %w", core.ErrInvalidConfig, errPerProcess)})

// refused is errPerProcess as a limiter func's error: it also matches
// middleware.ErrRefused, so that WithPassUnclassified does not pass the
// request unlimited.
type refused struct{ error }

func (refused) Is(target error) bool { return target == middleware.ErrRefused }

func (r refused) Unwrap() error { return r.error }

// refusePerProcess returns an error wrapping core.ErrInvalidConfig when
// this process is a Prefork child and l keeps its counts in it.
func refusePerProcess(l *core.Limiter) error {
	if l != nil && fiber.IsChild() && l.ProcessLocal() {
		return fmt.Errorf("%w: %w", core.ErrInvalidConfig, errPerProcess)
	}
	return nil
}

// sharedOnly is applied after the user's options in a Prefork child:
// neither the WithLimiterFunc function, if any, nor a config.Set's
// Options may choose a limiter that keeps its counts in this process. A
// request for which one does cannot be classified (errChosenPerProcess,
// an ErrNoLimiter), rather than limited once per child.
func sharedOnly(s *options.Settings[ratewindow.Handler, ratewindow.Event]) {
	if resolve := s.Resolve; resolve != nil {
		// A config.Set's choice, held to the same rule.
		s.Resolve = func(r keyfuncs.Request, need options.Need) (options.Resolved, error) {
			res, err := resolve(r, need)
			if res.Limiter != nil && res.Limiter.ProcessLocal() {
				res.Limiter, res.LimiterErr = nil, errChosenPerProcess
			}
			return res, err
		}
	}
	choose := s.LimiterFunc
	if choose == nil {
		return
	}
	s.LimiterFunc = func(r keyfuncs.Request, key string) (*core.Limiter, error) {
		l, err := choose(r, key)
		if err == nil && l != nil && l.ProcessLocal() {
			return nil, errChosenPerProcess
		}
		return l, err
	}
}
