// Package httpbench is the HTTP half of the comparison: it starts small
// servers on loopback (bare net/http, net/http with ratewindow's nethttp
// middleware or with go-chi/httprate, bare Fiber, Fiber with ratewindow's
// fibermw or with Fiber's own limiter middleware) and loads each with wrk,
// the same settings for all, parsing requests per second from wrk's output.
//
// Every limiter is keyed by the client IP (all of wrk's connections come
// from 127.0.0.1, so one hot key) with a limit so high that nothing is ever
// denied: the servers do the full work of deciding and writing headers on
// every request. Run fails when wrk saw any non-2xx answer or socket error,
// so a limiter that denied or broke requests cannot look fast.
package httpbench
