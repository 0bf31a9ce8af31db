package main

import (
	"bufio"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"
)

// probeTimeout bounds the TLS probe of Redis's addresses, which are
// probed together: each has all of it.
const probeTimeout = 2 * time.Second

// tlsMistake looks, after the startup check failed for a reason it could
// not name, for the setup mistakes that look like a Redis that is down
// from inside a client, and that waiting will not mend: a rediss:// URL
// on a port where Redis speaks plain text, a Redis that wants a client
// certificate (tls-auth-clients yes, Redis's default), which the server
// has none to present, and a certificate the client cannot verify (which
// the check names itself, unless its handshake ran out of time, as on a
// loaded host: the client's dial timeout is short). It returns the first
// found, in the order of addrs, or nil: an address that cannot be
// reached, or that does not tell within probeTimeout, is no mistake of
// the setup. The addresses are probed at once, so one that hangs (a
// frozen node among a cluster's seeds) neither hides a mistake on
// another nor makes the probe last longer than probeTimeout; the probes
// of the addresses after the one returned end by that deadline.
func tlsMistake(addrs []string, cfg *tls.Config) error {
	deadline := time.Now().Add(probeTimeout)
	found := make([]chan error, len(addrs))
	for i, addr := range addrs {
		found[i] = make(chan error, 1)
		go func() { found[i] <- probe(addr, cfg, deadline) }()
	}
	for _, mistake := range found {
		if err := <-mistake; err != nil {
			return err
		}
	}
	return nil
}

// probe looks for tlsMistake's mistakes on addr, by deadline.
func probe(addr string, cfg *tls.Config, deadline time.Time) error {
	if plainRedis(addr, deadline) {
		return fmt.Errorf("%s answers in plain text, not TLS: use redis:// for it, or the port Redis serves TLS on (tls-port)", addr)
	}
	return tlsRefused(addr, cfg, deadline)
}

// plainRedis reports whether addr answers a plain-text PING as Redis does
// without TLS: with one RESP simple string or error line ("+PONG",
// "-NOAUTH ..."). A TLS server answers it with an alert, or closes: it
// cannot take the bytes for a record. Asking in plain text, rather than
// reading what a plain Redis makes of a TLS ClientHello, is what makes
// the answer sure: Redis reads a ClientHello as an inline command, and
// answers nothing until a newline comes, which the ClientHello's random
// bytes may not hold.
func plainRedis(addr string, deadline time.Time) bool {
	conn, err := dial(addr, deadline)
	if err != nil {
		return false
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "PING\r\n"); err != nil {
		return false
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	return err == nil && strings.HasSuffix(line, "\r\n") &&
		(strings.HasPrefix(line, "+") || strings.HasPrefix(line, "-"))
}

// tlsRefused runs a TLS handshake of cfg with addr, presenting no client
// certificate, and returns why it failed for the setup: Redis's
// certificate cannot be verified (see tlsSetup), or Redis asked for a
// client certificate and then refused the handshake with an alert (TLS
// 1.3: "certificate required"; TLS 1.2: "handshake failure"). It returns
// nil when the handshake succeeded, failed otherwise, or could not be
// started.
//
// With TLS 1.3 the client's side of the handshake ends before the server
// has seen the client's (empty) certificate: the server sends its alert
// afterwards, unasked. So after the handshake this reads, writing
// nothing: a command written first could meet the server's reset of the
// connection (the command unread) before the alert is read.
func tlsRefused(addr string, cfg *tls.Config, deadline time.Time) error {
	conn, err := dial(addr, deadline)
	if err != nil {
		return nil
	}
	defer conn.Close()
	c := cfg.Clone()
	if c.ServerName == "" {
		// As tls.Dial, which go-redis uses, does.
		c.ServerName, _, _ = net.SplitHostPort(addr)
	}
	asked := false
	c.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
		asked = true
		return &tls.Certificate{}, nil // none to give
	}
	tc := tls.Client(conn, c)
	err = tc.Handshake()
	if err == nil && asked {
		_, err = tc.Read(make([]byte, 1))
	}
	switch {
	case tlsSetup(err):
		return fmt.Errorf("%s: %w", addr, err)
	case asked && remoteAlert(err):
		return fmt.Errorf("%s wants a client certificate, which this server cannot present (set tls-auth-clients no or optional on Redis): %w", addr, err)
	}
	return nil
}

// dial connects to addr over TCP, everything on the connection bounded
// by deadline.
func dial(addr string, deadline time.Time) (net.Conn, error) {
	conn, err := (&net.Dialer{Deadline: deadline}).Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	if err := conn.SetDeadline(deadline); err != nil {
		_ = conn.Close()
		return nil, err
	}
	return conn, nil
}

// remoteAlert reports whether err is a TLS alert sent by the peer.
// crypto/tls's alert type is not exported; the net.OpError that carries
// it is marked by its Op.
func remoteAlert(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "remote error"
}
