package logging

import (
	"log/slog"

	"github.com/ratewindow/ratewindow/internal/keyhash"
)

// keyAttr returns the attribute that shows key under the configured mode,
// and false when nothing is to be logged.
func (h *hook) keyAttr(key string) (slog.Attr, bool) {
	if key == "" {
		return slog.Attr{}, false
	}
	switch h.keys {
	case keyHashed:
		return slog.String("key_hash", keyhash.Hash(h.secret, key)), true
	case keyRaw:
		return slog.String("key", key), true
	}
	return slog.Attr{}, false
}
