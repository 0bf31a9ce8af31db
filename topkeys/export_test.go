package topkeys

// HashKey is hashKey, for the external tests.
var HashKey = hashKey
