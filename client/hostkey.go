package client

import (
	"net/http"
	"strings"
)

// hostKey shares state between requests to the same server, however
// their URLs write it: a host name in any case (DNS names are
// case-insensitive), with or without the trailing dot of a fully
// qualified name, and the scheme's default port given or left out (it is
// left out of the key, so http and https to one host share a key).
//
// The server is the host the request connects to and, when the request's
// Host field names another host (its port aside: see hostName), as
// tenants of one load balancer or IP address do, each with its own limit,
// that one too: each such pair is a key of its own, neither shared with
// the other tenants at the address nor with other addresses that take the
// same Host (backends behind a reverse proxy). A URL in lower case, without a Host of its own, costs
// no allocation.
func hostKey(r *http.Request) string {
	addr := canonicalHost(r.URL.Host, r.URL.Scheme)
	if r.Host == "" || r.Host == r.URL.Host {
		return addr
	}
	if name := hostName(r.Host); name != hostName(addr) {
		return addr + " host=" + name
	}
	return addr
}

// hostName is host (a URL's host or a Host field, with an optional port)
// in lower case, without its port and without a trailing dot. A Host
// field's port says nothing of where the request goes (its URL's does):
// a Host naming the URL's host with any port, or none, is no tenant, and
// a tenant's Host with its port written or not is one tenant.
func hostName(host string) string {
	name, _ := nameAndPort(host)
	return name
}

// canonicalHost is host (a URL's host or a Host field, with an optional
// port) in lower case, without a trailing dot, and without the port when
// it is the scheme's default.
func canonicalHost(host, scheme string) string {
	name, port := nameAndPort(host)
	switch {
	case port == "",
		port == "80" && scheme == "http",
		port == "443" && scheme == "https":
		return name
	}
	if len(name)+1+len(port) == len(host) && host[:len(name)] == name {
		return host // nothing was cut or lowered
	}
	return name + ":" + port
}

// nameAndPort splits host (a URL's host or a Host field, with an optional
// port) into its name, in lower case and without the trailing dot of a
// fully qualified name (the same host), and its port ("" when none).
func nameAndPort(host string) (name, port string) {
	name = host
	if i := strings.LastIndexByte(host, ':'); i >= 0 && strings.IndexByte(host[i:], ']') < 0 {
		// (A colon of an IPv6 address is not a port's.)
		name, port = host[:i], host[i+1:]
	}
	name = strings.ToLower(name)
	if len(name) > 1 && name[len(name)-1] == '.' {
		name = name[:len(name)-1]
	}
	return name, port
}
