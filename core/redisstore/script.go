package redisstore

import (
	"context"
	"crypto/sha1"
	"embed"
	"encoding/hex"
	"strings"

	"github.com/redis/go-redis/v9"
)

//go:embed *.lua
var luaFiles embed.FS

// blockFiles are the Lua files whose blocks the drivers paste in: one per
// algorithm (algorithmFiles), then the server-time step both drivers share.
var blockFiles = []string{"fixedwindow.lua", "slidingwindow.lua", "slidinglog.lua", "servertime.lua"}

// algorithmFiles are the block files that hold one algorithm each.
var algorithmFiles = blockFiles[:3]

// The two scripts behind Take and Peek, one per driver: oneScript for a
// single policy, manyScript for several.
var (
	oneScript  = newScript(compose("one.lua"))
	manyScript = newScript(compose("many.lua"))
	scripts    = []*script{oneScript, manyScript}
)

// header starts every assembled script. The shebang, with no flags, makes
// Redis 7 check the script as a whole before running it: it is refused
// with OOM, before any write, while Redis is over maxmemory (no
// allow-oom); it may touch only the keys it declares, all in one slot (no
// allow-cross-slot-keys: every key of a call shares one hash tag); and it
// runs only on a master (no no-writes). Redis before 7.0 rejects it.
const header = "#!lua\n"

// library holds the blocks of every block file by file and block name,
// split once for both drivers.
var library = func() map[string]map[string]string {
	all := map[string]map[string]string{}
	for _, name := range blockFiles {
		all[name] = blocks(name, read(name))
	}
	return all
}()

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
	args[0], args[1] = "evalsha", sc.sha
	cmd := redis.NewStringCmd(ctx, args...)
	cmd.SetFirstKeyPos(3)
	if err := c.Process(ctx, cmd); err == nil || !redis.HasErrorPrefix(err, "NOSCRIPT") {
		return cmd.Result()
	}
	args[0], args[1] = "eval", sc.src
	cmd = redis.NewStringCmd(ctx, args...)
	cmd.SetFirstKeyPos(3)
	_ = c.Process(ctx, cmd)
	return cmd.Result()
}

// compose returns header, then the driver with each placeholder line
//
//	-- @NAME FILE
//
// replaced by the block NAME of FILE (see blocks), inside do ... end so the
// block's locals stay its own, indented as the placeholder was.
func compose(driver string) string {
	var b strings.Builder
	b.WriteString(header)
	for _, line := range strings.SplitAfter(read(driver), "\n") {
		name, file, ok := placeholder(line)
		if !ok {
			b.WriteString(line)
			continue
		}
		block, found := library[file][name]
		if !found {
			panic("redisstore: " + driver + ": no block @" + name + " in " + file)
		}
		indent := line[:len(line)-len(strings.TrimLeft(line, " "))]
		b.WriteString(indent + "do -- " + file + "\n")
		for _, l := range strings.SplitAfter(block, "\n") {
			if strings.TrimSpace(l) != "" {
				b.WriteString(indent + "  " + l)
			} else {
				b.WriteString(l)
			}
		}
		b.WriteString(indent + "end\n")
	}
	return b.String()
}

// placeholder parses a driver line "-- @NAME FILE".
func placeholder(line string) (name, file string, ok bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(line), "-- @")
	if !ok {
		return "", "", false
	}
	name, file, ok = strings.Cut(rest, " ")
	return name, file, ok && strings.HasSuffix(file, ".lua")
}

// blocks splits an algorithm file into its blocks: each starts at a line
// "-- @NAME: comment" at the start of a line and runs to the next one. What
// comes before the first (the file's own comment) is no block.
func blocks(file, src string) map[string]string {
	out := map[string]string{}
	name := ""
	var b strings.Builder
	flush := func() {
		if name != "" {
			out[name] = strings.TrimRight(b.String(), "\n") + "\n"
		}
		b.Reset()
	}
	for _, line := range strings.SplitAfter(src, "\n") {
		if rest, ok := strings.CutPrefix(line, "-- @"); ok {
			n, _, found := strings.Cut(rest, ":")
			if !found || n == "" || strings.Contains(n, " ") {
				panic("redisstore: " + file + ": malformed block line " + line)
			}
			flush()
			name = n
		}
		b.WriteString(line)
	}
	flush()
	return out
}

func read(name string) string {
	src, err := luaFiles.ReadFile(name)
	if err != nil {
		// The files are embedded at build time: a missing one is a
		// programming error caught by every test run.
		panic("redisstore: missing embedded " + name)
	}
	return string(src)
}
