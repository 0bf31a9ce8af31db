package main

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestListenerStops: a listener that stops on its own (here: closed under
// the server) ends the program with status 1 and a line that says which,
// and the other listener is shut down too.
func TestListenerStops(t *testing.T) {
	for _, fw := range frameworks {
		for _, which := range []string{"public", "admin"} {
			t.Run(fw+"/"+which, func(t *testing.T) {
				cfg, err := parseFlags([]string{"-framework", fw, "-addr", "127.0.0.1:0", "-admin-addr", "127.0.0.1:0"})
				require.NoError(t, err)
				srv, err := build(cfg)
				require.NoError(t, err)
				t.Cleanup(srv.release)
				ln, err := net.Listen("tcp", cfg.addr)
				require.NoError(t, err)
				adminLn, err := net.Listen("tcp", cfg.adminAddr)
				require.NoError(t, err)
				stopped, other := ln, adminLn
				if which == "admin" {
					stopped, other = adminLn, ln
				}
				var stderr syncBuffer
				code := make(chan int, 1)
				go func() { code <- serve(context.Background(), srv, ln, adminLn, &stderr) }()
				// Serving: both answer.
				assert.Equal(t, ok, get(t, "http://"+ln.Addr().String()+"/healthz", nil).status)
				assert.Equal(t, ok, get(t, "http://"+adminLn.Addr().String()+"/metrics", nil).status)
				client.CloseIdleConnections()

				require.NoError(t, stopped.Close())
				select {
				case c := <-code:
					assert.Equal(t, 1, c)
				case <-time.After(waitLimit):
					t.Fatalf("serve did not return within %v of its %s listener's end", waitLimit, which)
				}
				line := stderr.String()
				oneLine(t, line)
				assert.True(t, strings.HasPrefix(line, "server: "), line)
				assert.Equal(t, which == "admin", strings.HasPrefix(line, "server: admin: "), line)
				// The other listener was shut down: closed, nothing accepts.
				_, err = net.DialTimeout("tcp", other.Addr().String(), time.Second)
				assert.Error(t, err, "the other listener still accepts")
			})
		}
	}
}
