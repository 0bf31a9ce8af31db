package middleware

import (
	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/keyfuncs"
)

// Exchange is one request and its response, as an adapter sees them: the
// framework-neutral request view the key funcs read, and the small response
// surface the flow and the handlers write to.
//
// Strings an Exchange returns must stay valid after the request ends (they
// may become stored keys); an adapter whose framework reuses request memory
// copies them.
type Exchange interface {
	keyfuncs.Request
	ratewindow.Response
}

// BytesExchange is an Exchange whose framework copies header values: the
// flow hands it values formatted per request as bytes, valid only during
// the call, instead of making a string of each.
type BytesExchange interface {
	Exchange
	SetHeaderBytes(name string, value []byte)
}
