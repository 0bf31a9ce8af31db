// Package oracle is a deliberately naive model of a core.Store, written from
// the algorithm definitions, and the fuzz body that replays byte strings
// against a store and the model. core/storetest's suite and the stores'
// fuzz targets use it.
package oracle
