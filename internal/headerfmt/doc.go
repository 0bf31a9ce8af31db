// Package headerfmt formats the rate-limit response fields of a decision:
// the implementation behind the public headers.Writer, and the pieces only
// the middleware needs (the partition key from the rate-limit key,
// Retry-After, the check of policy names at construction).
//
// The modes, numbers and names are documented in package headers.
package headerfmt
