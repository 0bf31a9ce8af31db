package redisstore

import (
	"context"
	"crypto/sha1"
	"embed"
	"encoding/hex"

	"github.com/redis/go-redis/v9"
)

// The scripts are generated from the driver and block files next to this
// one (see gen.go and docs/redis-scripts.md); scripts/ holds them as they
// run.
//
//go:embed scripts/*.lua
var scriptFiles embed.FS

// The scripts behind Take and Peek: oneScript for a single policy,
// manyScript for several, and batchLua for several calls at once (see
// batch.go).
var (
	oneScript  = newScript(read("scripts/one.lua"))
	manyScript = newScript(read("scripts/many.lua"))
	batchLua   = newScript(read("scripts/batch.lua"))
	scripts    = []*script{oneScript, manyScript, batchLua}
)

// script is a Lua script and its SHA-1, kept as interface values so that a
// call boxes neither.
type script struct {
	src, sha any
}

func newScript(src string) *script {
	sum := sha1.Sum([]byte(src))
	return &script{src: src, sha: hex.EncodeToString(sum[:])}
}

// run sends EVALSHA with args (args[2:] as the EVAL command takes them:
// the number of keys, the keys, the arguments) and, when the server does not
// know the script (the first call on a node, or after a SCRIPT FLUSH or a
// restart), EVAL, which caches it again. This is go-redis's Script.Run with
// a StringCmd, so the reply (one MessagePack string) is read with one
// allocation.
func (sc *script) run(ctx context.Context, c redis.UniversalClient, args []any) (string, error) {
	reply, err := sc.send(ctx, c, args, false)
	if err == nil || !redis.HasErrorPrefix(err, "NOSCRIPT") {
		return reply, err
	}
	return sc.send(ctx, c, args, true)
}

// send sends EVALSHA with args, or EVAL if src is set, and returns the
// reply.
func (sc *script) send(ctx context.Context, c redis.UniversalClient, args []any, src bool) (string, error) {
	args[0], args[1] = "evalsha", sc.sha
	if src {
		args[0], args[1] = "eval", sc.src
	}
	cmd := redis.NewStringCmd(ctx, args...)
	cmd.SetFirstKeyPos(3)
	_ = c.Process(ctx, once{cmd})
	return cmd.Result()
}

// once is a script call that go-redis must not send again on its own. The
// client retries a command whose reply did not come (a timeout, a dropped
// connection), and a cluster client does so even with retries turned off,
// for up to MaxRedirects attempts; a script that ran but whose reply was
// lost would then be charged twice. The store retries only the answers
// that say the script did not run (see runRetried); a lost reply is an
// error, and the call may have been charged.
type once struct{ *redis.StringCmd }

// NoRetry tells go-redis not to send the command again.
func (once) NoRetry() bool { return true }

func read(name string) string {
	src, err := scriptFiles.ReadFile(name)
	if err != nil {
		// The files are embedded at build time: a missing one is a
		// programming error caught by every test run.
		panic("redisstore: missing embedded " + name)
	}
	return string(src)
}
