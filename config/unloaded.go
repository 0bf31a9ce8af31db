package config

import (
	"fmt"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	mwoptions "github.com/ratewindow/ratewindow/internal/options"
)

// errUnloaded is the error of a Set that Load did not make: a nil *Set
// (Load's error ignored) or a zero Set, which has no configuration to
// look requests up in.
var errUnloaded = fmt.Errorf("%w: config: the Set was not made by Load (a nil *Set: was Load's error ignored?)", core.ErrInvalidConfig)

// loaded reports whether s was made by Load.
func (s *Set) loaded() bool { return s != nil && s.cur.Load() != nil }

// failNew is the option an unloaded Set's Options return: it makes the
// adapter's New fail with errUnloaded, as an option given a nil function
// makes it fail, instead of building a middleware whose every request
// would find no configuration.
func failNew(c *mwoptions.Settings[ratewindow.Handler, ratewindow.Event]) {
	c.Errs = append(c.Errs, errUnloaded)
}
