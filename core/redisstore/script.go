package redisstore

import (
	"embed"
	"strings"

	"github.com/redis/go-redis/v9"
)

//go:embed *.lua
var luaFiles embed.FS

// scriptFiles lists the Lua files in the order they are joined: helpers,
// then one file per algorithm, then the driver that calls them.
var scriptFiles = []string{"timeutil.lua", "fixedwindow.lua", "slidingwindow.lua", "slidinglog.lua", "take.lua"}

// takeScript is the one script behind Take and Peek. Run sends EVALSHA and
// falls back to EVAL (which caches the script again) on NOSCRIPT, so a
// SCRIPT FLUSH or a restarted server heals on the next call.
var takeScript = redis.NewScript(joinScript())

func joinScript() string {
	var b strings.Builder
	for _, name := range scriptFiles {
		src, err := luaFiles.ReadFile(name)
		if err != nil {
			// The files are embedded at build time: a missing one is a
			// programming error caught by every test run.
			panic("redisstore: missing embedded " + name)
		}
		b.WriteString("-- ")
		b.WriteString(name)
		b.WriteString("\n")
		b.Write(src)
		b.WriteString("\n")
	}
	return b.String()
}
