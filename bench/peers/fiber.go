package peers

import (
	"net/http/httptest"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/limiter"
	"github.com/gofiber/fiber/v2/utils"

	"github.com/ratewindow/ratewindow/core"
)

// fiberLimiter is Fiber's own limiter middleware in a Fiber app, asked
// in-process through app.Test (no network), keyed by an X-Key header. Fiber
// reads time from a counter of whole seconds that a ticker advances, so
// windows are whole seconds and its rows run in real time.
type fiberLimiter struct{ app *fiber.App }

func fiberPeer(name, alg string, h limiter.LimiterHandler) Peer {
	return Peer{
		Name:         name,
		Algorithm:    alg,
		RealTimeOnly: true,
		Granularity:  time.Second,
		Align:        awaitFiberTick,
		New: func(limit int64, window time.Duration, _ core.Clock) (Limiter, error) {
			if err := checkArgs(limit, window); err != nil {
				return nil, err
			}
			app := fiber.New(fiber.Config{DisableStartupMessage: true})
			app.Use(limiter.New(limiter.Config{
				Max:               int(limit),
				Expiration:        window,
				KeyGenerator:      func(c *fiber.Ctx) string { return c.Get("X-Key") },
				LimiterMiddleware: h,
			}))
			app.Get("/", func(c *fiber.Ctx) error { return c.SendString("ok") })
			return &fiberLimiter{app: app}, nil
		},
	}
}

func (f *fiberLimiter) Allow(key string) bool {
	req := httptest.NewRequest("GET", "/", nil)
	req.Header.Set("X-Key", key)
	resp, err := f.app.Test(req, -1)
	if err != nil {
		return false
	}
	_ = resp.Body.Close()
	return resp.StatusCode == fiber.StatusOK
}

func (f *fiberLimiter) Close() { _ = f.app.Shutdown() }

// awaitFiberTick waits (at most 1.2 s) until Fiber's seconds counter
// advances, so a window that starts now ends after whole ticks.
func awaitFiberTick() {
	utils.StartTimeStampUpdater()
	t := atomic.LoadUint32(&utils.Timestamp)
	for deadline := time.Now().Add(1200 * time.Millisecond); time.Now().Before(deadline); {
		if atomic.LoadUint32(&utils.Timestamp) != t {
			return
		}
		time.Sleep(time.Millisecond)
	}
}
