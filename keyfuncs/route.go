package keyfuncs

// Route keys requests by method and route pattern, e.g. "GET /users/{id}",
// so /users/1 and /users/2 share one quota. When the framework reports no
// pattern (Request.Route is ""), the URL path is used instead, which gives
// every distinct path its own key.
var Route KeyFunc = func(r Request) (string, error) {
	p := r.Route()
	if p == "" {
		p = r.Path()
	}
	return boundKey(r.Method()+" "+p, DefaultMaxKeyLen), nil
}

// Path keys requests by URL path as received, e.g. "/users/42".
var Path KeyFunc = func(r Request) (string, error) {
	return boundKey(r.Path(), DefaultMaxKeyLen), nil
}

// Constant gives every request the same key: one quota shared by all
// clients, e.g. to protect a fragile backend. An empty key gives ErrNoKey.
func Constant(key string) KeyFunc {
	key = boundKey(key, DefaultMaxKeyLen)
	return func(Request) (string, error) {
		if key == "" {
			return "", ErrNoKey
		}
		return key, nil
	}
}
