package redisstore

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Redis words an ACL refusal differently from one release to the next,
// and inside a script differently from outside. Each wording, as a call
// meets it or as Check's decisions do, is a misconfiguration: a store
// whose user may not run its scripts' commands must not read as a Redis
// that is down. The texts are Redis's own (7.0 and 7.2 onwards, as Valkey);
// the test machine runs one release, so they are given here as answers.
func TestACLRefusalsOfEveryReleaseAreMisconfigurations(t *testing.T) {
	for _, text := range []string{
		// A command the client sends, 7.0 and 7.2+.
		"NOPERM this user has no permissions to access one of the keys used as arguments",
		"NOPERM User limiter has no permissions to run the 'del' command",
		"NOPERM No permissions to access a key",
		// A command a script runs, 7.0.
		"ERR The user executing the script can't run this command or subcommand script: 5d1c, on @user_script:12.",
		"ERR The user executing the script can't access at least one of the keys mentioned in the command script: 5d1c, on @user_script:3.",
		// A command a script runs, 7.2+.
		"ERR ACL failure in script: User limiter has no permissions to run the 'pexpiretime' command script: 5d1c, on @user_script:12.",
		"ERR ACL failure in script: No permissions to access a key script: 5d1c, on @user_script:3.",
		// The same in a batch, as the batch script reports it.
		"ACL failure in script: No permissions to access a key",
	} {
		err := classify(scriptError(text))
		assert.True(t, errors.Is(err, ErrMisconfigured), "%q: %v", text, err)
		var reply scriptError
		assert.True(t, errors.As(err, &reply), "%q: Redis's answer is kept", text)
	}
	for _, text := range []string{
		"ERR user_script:1: Script attempted to access nonexistent global variable 'x' script: 5d1c, on @user_script:1.",
		"WRONGTYPE Operation against a key holding the wrong kind of value",
		"BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSCRIPT.",
	} {
		assert.False(t, errors.Is(classify(scriptError(text)), ErrMisconfigured), "%q is no ACL refusal", text)
	}
}
