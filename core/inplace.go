package core

import (
	"unsafe"

	"github.com/ratewindow/ratewindow/internal/inplace"
)

// inPlaceStore is a Store that can answer a one-policy request by writing
// the policy's state into r.States[0]: core/memory's Store. Peeking when
// charge is false, it is Take or Peek for policies == []Policy{*p}, with
// now in Unix milliseconds. It must not keep r after it returns (see
// noescape); the inplace.Seal parameter keeps it to stores in this module.
type inPlaceStore interface {
	TakeInPlace(r *Result, key string, p *Policy, cost, nowMillis int64, charge bool, _ inplace.Seal)
}

// noescape returns r, hidden from escape analysis. Passed as is through
// the inPlaceStore interface call, r would be assumed to escape, and every
// Decision would move to the heap: one allocation per request. The
// in-place path is sound because its only implementation writes through r
// during the call and never keeps it. The pointer is copied as bits,
// without a uintptr-to-pointer conversion, so vet and checkptr accept it;
// q is a pointer-typed variable, so the garbage collector and stack
// copying see it as usual.
func noescape(r *Result) (q *Result) {
	*(*uintptr)(unsafe.Pointer(&q)) = uintptr(unsafe.Pointer(r))
	return q
}
