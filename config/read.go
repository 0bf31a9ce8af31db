package config

import (
	"fmt"
	"io"
	"os"
)

// maxFileSize bounds what Load and Reload read: far above any limits file
// written by hand or generated per tenant, and far below what would hurt
// a server that re-reads the file every second. A path that points by
// mistake at a log, a dump or a device such as /dev/zero is refused
// rather than read whole into memory.
const maxFileSize = 16 << 20

// readFile reads the file at path, at most maxFileSize bytes of it.
func readFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return nil, err // an *fs.PathError, naming the file
	}
	if len(data) > maxFileSize {
		return nil, fmt.Errorf("read %s: larger than %d MiB, the most a limits file may be", path, maxFileSize>>20)
	}
	return data, nil
}
