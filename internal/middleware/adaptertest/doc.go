// Package adaptertest is the one table of HTTP scenarios every ratewindow
// adapter must pass. An adapter's test starts a real server on a loopback
// listener through its Mount func, and Run drives the scenarios through real
// HTTP round trips, on a fake clock. The table states every expected status,
// rate-limit header and body, so passing it means the four adapters answer
// alike, byte for byte in what a client sees of the limiter.
package adaptertest
