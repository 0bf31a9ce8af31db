package logging

// Names the external tests use for unexported values.
const (
	MsgBreakerOpen          = msgBreakerOpen
	MsgBreakerHalfOpen      = msgBreakerHalfOpen
	MsgBreakerClosed        = msgBreakerClosed
	MsgBreakerOther         = msgBreakerOther
	MsgFailedPassed         = msgFailedPassed
	MsgFailedRejected       = msgFailedRejected
	MsgWouldDeny            = msgWouldDeny
	MsgDenied               = msgDenied
	MsgFallback             = msgFallback
	MsgUnclassifiedPassed   = msgUnclassifiedPassed
	MsgUnclassifiedRejected = msgUnclassifiedRejected
)
