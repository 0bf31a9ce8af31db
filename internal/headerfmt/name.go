package headerfmt

import (
	"fmt"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/internal/policyname"
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

// ValidatePolicyNames reports, wrapping core.ErrInvalidConfig, two policies
// whose names are written the same in the RateLimit fields, such as
// "tier-é" and "tier-ü" (both written "tier-_"): a client could not tell
// them apart. The adapters' New functions check the limiter's policies
// with it.
func ValidatePolicyNames(policies []core.Policy) error {
	shown := make(map[string]string, len(policies))
	for i := range policies {
		name := policies[i].Name
		if name == "" {
			name = policyname.Default(policies[i].Window)
		}
		s := string(appendString(nil, name))
		if other, ok := shown[s]; ok && other != name {
			return fmt.Errorf("%w: headers: policy names %q and %q are both written %s; rename one to printable ASCII", core.ErrInvalidConfig, other, name, s)
		}
		shown[s] = name
	}
	return nil
}
