package headers

import (
	"fmt"

	"github.com/ratewindow/ratewindow/core"
)

// ValidatePolicyName reports, wrapping core.ErrInvalidConfig, a name that
// cannot be written as an sf-string unchanged: one holding a control
// character or a character outside ASCII. Such a name would be written with
// '_' in place of each offending character. Use it when loading
// configuration.
func ValidatePolicyName(name string) error {
	for i := 0; i < len(name); i++ {
		if c := name[i]; c < 0x20 || c > 0x7e {
			return fmt.Errorf("%w: headers: policy name %q: byte %d (0x%02x) is not printable ASCII and cannot appear in a RateLimit field", core.ErrInvalidConfig, name, i, c)
		}
	}
	return nil
}
