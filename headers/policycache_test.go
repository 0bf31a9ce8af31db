package headers

import (
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCachedStringNeverStale(t *testing.T) {
	// More distinct values than slots, written from several goroutines:
	// every call must return exactly its input.
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 5000; i++ {
				in := []byte(`"p` + strconv.Itoa(i%300) + `";q=10;w=1`)
				if got := cachedString(in); got != string(in) {
					t.Errorf("cachedString(%q) = %q", in, got)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestCachedStringReuses(t *testing.T) {
	in := []byte(`"burst";q=10;w=1, "steady";q=600;w=60`)
	first := cachedString(in)
	allocs := testing.AllocsPerRun(100, func() {
		if cachedString(in) != first {
			panic("changed")
		}
	})
	require.Zero(t, allocs)
}
