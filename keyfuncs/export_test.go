package keyfuncs

// Path keys requests by URL path as received, e.g. "path:/users/42": the
// tests' key with a namespace of its own (the "path" tag stays reserved).
func Path(r Request) (string, error) {
	return boundKey(tagPath+r.Path(), DefaultMaxKeyLen), nil
}
