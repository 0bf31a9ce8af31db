package adaptertest

import (
	"net/http"
	"strconv"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/internal/headerfmt"
	"github.com/ratewindow/ratewindow/keyfuncs"
)

// handlerScenarios hold the responses of handlers of the user's own that
// misuse ratewindow.Response, to the same answer on every framework.
func handlerScenarios() []Scenario {
	return []Scenario{
		{
			// Unguarded, each framework answers 200 OK with an
			// empty body: a stopped request that looks served.
			Name: "a handler that sends nothing: the request is still answered with the default status, no body",
			Options: func(env *Env) []ratewindow.Option {
				silent := func(w ratewindow.Response, _ keyfuncs.Request, _ ratewindow.Event) { w.SetHeader("X-Handler", "ran") }
				down := env.NewLimiter(FailingStore{}, core.PerMinute(3).Using(core.FixedWindow).Named("minute"))
				return []ratewindow.Option{
					ratewindow.WithKeyFunc(keyfuncs.Header("X-Client", nil)),
					ratewindow.WithLimiterFunc(func(r keyfuncs.Request, _ string) (*core.Limiter, error) {
						if r.Header("X-Down") != "" {
							return down, nil
						}
						return nil, nil
					}),
					ratewindow.WithFailClosed(),
					ratewindow.WithDenyHandler(silent),
					ratewindow.WithErrorHandler(silent),
					ratewindow.WithUnclassifiedHandler(silent),
				}
			},
			Steps: []Step{
				{Header: client("a"), Repeat: 3, Status: 200, Body: okBody},
				{Header: client("a"), Status: 429, Want: denied(minute(0, 60), 60), EmptyBody: true},
				{Header: map[string]string{"X-Client": "a", "X-Down": "yes"}, Status: 503, Want: none, EmptyBody: true},
				{Status: 400, Want: none, EmptyBody: true},
			},
		},
		{
			// Unguarded, net/http, Gin and Echo keep the first
			// status and write both bodies; Fiber keeps the second.
			Name: "a handler that sends twice: the first answer stands",
			Options: func(*Env) []ratewindow.Option {
				return []ratewindow.Option{ratewindow.WithDenyHandler(func(w ratewindow.Response, _ keyfuncs.Request, _ ratewindow.Event) {
					w.Send(http.StatusTooManyRequests, []byte("first\n"))
					w.Send(http.StatusTeapot, []byte("second\n"))
				})}
			},
			Steps: []Step{
				{Repeat: 3, Status: 200},
				{Status: 429, Want: denied(minute(0, 60), 60), Body: "first\n"},
			},
		},
		{
			// Unguarded, Fiber sends a field set after Send and the
			// others drop it.
			Name: "a field a handler sets after sending is dropped",
			Options: func(*Env) []ratewindow.Option {
				return []ratewindow.Option{ratewindow.WithDenyHandler(func(w ratewindow.Response, _ keyfuncs.Request, _ ratewindow.Event) {
					w.Send(http.StatusTooManyRequests, []byte("slow down\n"))
					w.SetHeader(headerfmt.FieldRetryAfter, "3600")
				})}
			},
			Steps: []Step{
				{Repeat: 3, Status: 200},
				{Status: 429, Want: denied(minute(0, 60), 60), Body: "slow down\n"},
			},
		},
		statusScenario(),
		{
			// Unguarded, Fiber writes such a name as given, CR LF
			// and all, so a handler could end the field and start one
			// of its choosing; net/http, Gin and Echo drop it.
			Name: "a field a handler names with a character no field name has is dropped",
			Options: func(*Env) []ratewindow.Option {
				return []ratewindow.Option{ratewindow.WithDenyHandler(func(w ratewindow.Response, _ keyfuncs.Request, _ ratewindow.Event) {
					w.SetHeader("X-Note\r\n"+headerfmt.FieldRetryAfter, "3600")
					w.SetHeader("X Note", "1")
					w.Send(http.StatusTooManyRequests, []byte("slow down\n"))
				})}
			},
			Steps: []Step{
				{Repeat: 3, Status: 200},
				{Status: 429, Want: denied(minute(0, 60), 60), Body: "slow down\n"},
			},
		},
	}
}

// statusScenario: a handler of the user's own that sends a status no
// final response has. Unguarded, net/http and Echo panic on 0 and 1000
// (the client sees the connection drop), Gin answers 200, Fiber 200 or a
// malformed status line; a 1xx gives 200 and the body on three and a
// body-less 103 on Fiber.
func statusScenario() Scenario {
	return Scenario{
		Name: "a handler that sends a status outside 200-599: the default status stands",
		Options: func(*Env) []ratewindow.Option {
			return []ratewindow.Option{byClient, ratewindow.WithDenyHandler(func(w ratewindow.Response, r keyfuncs.Request, _ ratewindow.Event) {
				status, _ := strconv.Atoi(r.Header("X-Status"))
				w.SetHeader("Content-Type", "text/plain; charset=utf-8")
				w.Send(status, []byte("slow down\n"))
			})}
		},
		Steps: []Step{
			{Header: client("a"), Repeat: 3, Status: 200},
			{Header: map[string]string{"X-Client": "a", "X-Status": "0"}, Status: 429, Want: denied(minute(0, 60), 60), Body: "slow down\n"},
			{Header: map[string]string{"X-Client": "a", "X-Status": "103"}, Status: 429, Want: denied(minute(0, 60), 60), Body: "slow down\n"},
			{Header: map[string]string{"X-Client": "a", "X-Status": "1000"}, Status: 429, Want: denied(minute(0, 60), 60), Body: "slow down\n"},
			{Header: map[string]string{"X-Client": "a", "X-Status": "600"}, Status: 429, Body: "slow down\n"},
			{Header: map[string]string{"X-Client": "a", "X-Status": "503"}, Status: 503, Body: "slow down\n"},
		},
	}
}
