// Package algo holds the counting state of each algorithm and the pure
// functions that evaluate and charge it: state and request in, state and
// core.PolicyState out. The memory store keeps these states; the Redis
// store's Lua scripts mirror them line for line; core/storetest checks
// every store against them.
//
// Times are Unix milliseconds and windows are milliseconds.
package algo
