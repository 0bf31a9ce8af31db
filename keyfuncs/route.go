package keyfuncs

// Route keys requests by method and route pattern, e.g.
// "route:GET /users/{id}", so /users/1 and /users/2 share one quota. When
// the framework reports no pattern (Request.Route is ""), the URL path is
// used instead, which gives every distinct path its own key.
func Route(r Request) (string, error) {
	p := r.Route()
	if p == "" {
		p = r.Path()
	}
	return boundKey(tagRoute+r.Method()+" "+p, maxKeyLen), nil
}

// Constant gives every request the same key, "const:" and key: one quota
// shared by all clients, e.g. to protect a fragile backend. An empty key
// gives ErrNoKey.
func Constant(key string) KeyFunc {
	if key == "" {
		return failing(ErrNoKey)
	}
	key = boundKey(tagConst+key, maxKeyLen)
	return func(Request) (string, error) { return key, nil }
}
