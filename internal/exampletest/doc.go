// Package exampletest holds the one check the example programs share: the
// routes of examples/nethttp, gin, echo and fiber must behave alike
// (/login limited by IP on a sliding log, /api by API key, /healthz free).
package exampletest
