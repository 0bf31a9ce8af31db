package logging

import "github.com/ratewindow/ratewindow"

// Chain returns one OnDecision hook that calls each of hooks in order, so
// that a middleware can feed both a metrics Collector and a logger:
//
//	ratewindow.WithOnDecision(logging.Chain(collector.Observe, logging.Hook(logger)))
//
// Nil hooks are dropped. With no hook left Chain returns nil (no hook at
// all, so the middleware builds no Event); with one it returns that hook.
func Chain(hooks ...func(ratewindow.Event)) func(ratewindow.Event) {
	var hs []func(ratewindow.Event)
	for _, h := range hooks {
		if h != nil {
			hs = append(hs, h)
		}
	}
	switch len(hs) {
	case 0:
		return nil
	case 1:
		return hs[0]
	}
	return func(ev ratewindow.Event) {
		for _, h := range hs {
			h(ev)
		}
	}
}
