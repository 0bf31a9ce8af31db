package headerfmt

import (
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/ratewindow/ratewindow/internal/policyname"
)

// writeIETF writes RateLimit-Policy and RateLimit in the draft-8 syntax.
// With setBytes, RateLimit is handed over as bytes from a pooled buffer.
func (w *Writer) writeIETF(set func(name, value string), setBytes func(name string, value []byte), v *decisionView, key string) {
	var pk []byte
	var pkBuf [pkEncodedLen]byte
	if w.PartitionKey && key != "" {
		pk = appendPartitionKey(pkBuf[:0], w.PartitionSecret, key)
	}
	// The common case: the limiter's policies, no pk. The policy field and
	// the encoded names come formatted from the cache.
	var names []string
	if pk == nil && v.cached {
		e := policySetFor(v)
		set(FieldPolicy, e.field)
		names = e.names
	} else {
		var buf [256]byte
		set(FieldPolicy, string(appendPolicyField(buf[:0], v, pk)))
	}
	if setBytes != nil {
		p := scratch.Get().(*[256]byte)
		setBytes(FieldRateLimit, w.appendRateLimit(p[:0], v, names, pk))
		scratch.Put(p)
		return
	}
	var buf [256]byte
	set(FieldRateLimit, string(w.appendRateLimit(buf[:0], v, names, pk)))
}

// scratch holds the buffers RateLimit values are formatted in when they
// are handed over as bytes (the receiver copies them).
var scratch = sync.Pool{New: func() any { return new([256]byte) }}

// appendRateLimit appends the RateLimit value: the binding policy's item,
// or every policy's with AllPolicies. names are the policies' encoded
// names, or nil to encode them here; pk, if not nil, is added to each item.
func (w *Writer) appendRateLimit(b []byte, v *decisionView, names []string, pk []byte) []byte {
	first := true
	for i := range v.len() {
		if !w.AllPolicies && i != v.bind {
			continue
		}
		if !first {
			b = append(b, ", "...)
		}
		first = false
		if names != nil {
			b = append(b, names[i]...)
		} else {
			b = appendString(b, policyName(v, i))
		}
		b = append(b, ";r="...)
		b = appendInt(b, v.remaining(i))
		b = append(b, ";t="...)
		b = appendInt(b, v.reset(i))
		if pk != nil {
			b = append(b, ";pk="...)
			b = append(b, pk...)
		}
	}
	return b
}

// appendPolicyField appends the RateLimit-Policy value for v's policies,
// each item with the partition key pk unless pk is nil.
func appendPolicyField(b []byte, v *decisionView, pk []byte) []byte {
	for i := range v.len() {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = appendString(b, policyName(v, i))
		b = append(b, ";q="...)
		b = appendInt(b, v.limit(i))
		b = append(b, ";w="...)
		b = appendInt(b, v.window(i))
		if pk != nil {
			b = append(b, ";pk="...)
			b = append(b, pk...)
		}
	}
	return b
}

// writeDraftPolicy writes the RateLimit-Policy of drafts 06 and 07: one
// quota;w=window item per policy, no names.
func writeDraftPolicy(set func(name, value string), v *decisionView) {
	if v.cached {
		set(FieldPolicy, policySetFor(v).draftField)
		return
	}
	var buf [64]byte
	set(FieldPolicy, string(appendDraftPolicyField(buf[:0], v)))
}

// appendDraftPolicyField appends the draft-06/07 RateLimit-Policy value.
func appendDraftPolicyField(b []byte, v *decisionView) []byte {
	for i := range v.len() {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = appendInt(b, v.limit(i))
		b = append(b, ";w="...)
		b = appendInt(b, v.window(i))
	}
	return b
}

// writeDraft7 writes the combined RateLimit field of draft-07, a
// Dictionary, for the binding policy.
func writeDraft7(set func(name, value string), v *decisionView) {
	i := v.bind
	var buf [80]byte
	b := append(buf[:0], "limit="...)
	b = appendInt(b, v.limit(i))
	b = append(b, ", remaining="...)
	b = appendInt(b, v.remaining(i))
	b = append(b, ", reset="...)
	b = appendInt(b, v.reset(i))
	set(FieldRateLimit, string(b))
}

// writeTriple writes the limit, remaining and reset fields of the binding
// policy. A non-zero epoch makes reset a Unix time in seconds, rounded up.
func writeTriple(set func(name, value string), v *decisionView, limit, remaining, reset string, epoch time.Time) {
	i := v.bind
	set(limit, strconv.FormatInt(v.limit(i), 10))
	set(remaining, strconv.FormatInt(v.remaining(i), 10))
	t := v.reset(i)
	if !epoch.IsZero() {
		t = clampInt(ceilUnix(epoch.Add(max(v.resetAfter(i), 0))))
	}
	set(reset, strconv.FormatInt(t, 10))
}

// ceilUnix is t as Unix time in whole seconds, rounded up.
func ceilUnix(t time.Time) int64 {
	s := t.Unix()
	if t.Nanosecond() > 0 {
		s++
	}
	return s
}

// policyName is the name written for policy i.
func policyName(v *decisionView, i int) string {
	p := v.policy(i)
	if p.Name != "" {
		return p.Name
	}
	return policyname.Default(p.Window)
}

// appendInt appends n in decimal.
func appendInt(b []byte, n int64) []byte { return strconv.AppendInt(b, n, 10) }

// appendString appends s as an sf-string: quoted, with '"' and '\'
// escaped, and every character outside printable ASCII replaced by '_'.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
			i++
		case c >= 0x20 && c <= 0x7e:
			b = append(b, c)
			i++
		case c < utf8.RuneSelf:
			b = append(b, '_')
			i++
		default:
			_, size := utf8.DecodeRuneInString(s[i:])
			b = append(b, '_')
			i += size
		}
	}
	return append(b, '"')
}
