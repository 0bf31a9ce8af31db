package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	limitconfig "github.com/ratewindow/ratewindow/config"
	"github.com/ratewindow/ratewindow/core"
)

// reloadEvery is how often the -config file is checked for changes.
const reloadEvery = time.Second

// loadLimits loads the -config file onto store and watches it until the
// returned func is called. Reloads are logged and counted in
// ratewindow_config_reloads_total{result="applied"|"rejected"}.
func loadLimits(path string, store core.Store, logger *slog.Logger, reg prometheus.Registerer) (*limitconfig.Set, func(), error) {
	reloads := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "ratewindow_config_reloads_total",
		Help: "Reloads of the limits file that found new content, by result: applied (a rejected edit undone included), or rejected (the running configuration was kept).",
	}, []string{"result"})
	applied, rejected := reloads.WithLabelValues("applied"), reloads.WithLabelValues("rejected")
	rules, err := limitconfig.Load(path,
		limitconfig.WithStore(store), limitconfig.WithLogger(logger),
		limitconfig.WithOnReload(func(err error) {
			if err != nil {
				rejected.Inc()
			} else {
				applied.Inc()
			}
		}))
	if err != nil {
		return nil, nil, err
	}
	if err := reg.Register(reloads); err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		rules.Watch(ctx, reloadEvery)
		close(done)
	}()
	return rules, func() { cancel(); <-done }, nil
}
