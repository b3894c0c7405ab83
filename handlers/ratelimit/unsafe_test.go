package ratelimit

import "unsafe"

// unsafeString mimics fiber/fasthttp's zero-copy []byte to string conversion.
func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
