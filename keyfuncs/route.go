package keyfuncs

import "net/http"

// Route keys requests by method and route pattern, e.g.
// "route:GET /users/{id}", so /users/1 and /users/2 share one quota. When
// the framework reports no pattern (Request.Route is ""), the URL path is
// used instead, which gives every distinct path its own key.
//
// The method is one of those HTTP defines (GET, POST, PUT, PATCH, DELETE,
// CONNECT, OPTIONS, TRACE), with HEAD keyed as GET: a ServeMux pattern
// "GET /users/{id}" and Fiber's app.Get serve HEAD through the GET handler,
// so the two share one quota. Any other method ("PROPFIND", "get", a name
// the client made up) is keyed as OTHER: "route:OTHER /users/{id}". A
// ServeMux pattern without a method hands every method to its handler, so
// a client must not be able to mint a fresh quota per invented method.
func Route(r Request) (string, error) {
	p := r.Route()
	if p == "" {
		p = r.Path()
	}
	return boundKey(tagRoute+routeMethod(r.Method())+" "+p, maxKeyLen), nil
}

// routeMethod is the method as Route keys it: HEAD as GET, another method
// HTTP defines as is, any other as "OTHER".
func routeMethod(m string) string {
	switch m {
	case http.MethodHead:
		return http.MethodGet
	case http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodConnect, http.MethodOptions, http.MethodTrace:
		return m
	}
	return "OTHER"
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
