// Command scriptgen writes the Lua scripts that the Redis store runs.
//
// The store's scripts are assembled from small files: a driver per script
// (one.lua, many.lua, ...), whose placeholder lines "-- @NAME FILE" stand
// for the block NAME of a block file (fixedwindow.lua, slidingwindow.lua,
// slidinglog.lua, servertime.lua). A block may hold placeholders too, as
// the fixed window's and the sliding counter's do for keyform.lua. The
// algorithms are pasted in as plain statements, not Lua functions, because
// a script's functions are created anew on every call. Run from
// core/redisstore (go generate does), it writes each assembled script to
// scripts/, where the store embeds it from; docs/redis-scripts.md lists the
// variables the blocks share.
package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// drivers are the scripts to generate, each from the driver file of the
// same name.
var drivers = []string{"one.lua", "many.lua", "batch.lua"}

// outDir is where the generated scripts go, relative to core/redisstore.
const outDir = "scripts"

func main() {
	if err := generate(os.DirFS("."), outDir); err != nil {
		fmt.Fprintln(os.Stderr, "scriptgen:", err)
		os.Exit(1)
	}
}

func generate(src fs.FS, out string) error {
	for _, d := range drivers {
		script, err := compose(src, d)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(out, d), []byte(script), 0o644); err != nil {
			return err
		}
	}
	return nil
}
