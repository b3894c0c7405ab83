// Package ratelimit is the rate-limiting core of cloudplane: per-key GCRA
// limiters behind a small Limiter interface, so the HTTP middleware does not
// care whether state lives in this process (NewMemory) or in Redis shared by
// all replicas (NewRedis).
//
// The algorithm is throttled/v2's GCRA (generic cell rate algorithm); this
// package only supplies the stores, the quota parsing and the header values.
//
// A Quota of Rate r and Burst b behaves like a bucket holding b tokens that
// refills one token every r: a client may send b requests at once, then one
// per r. "1/12s" with burst 1 therefore allows one launch, then the next only
// 12 s later; "1/s" with burst 5 allows five requests at once, then 1/s.
//
// What the numbers in a Result mean (and hence the RateLimit-* headers):
//
//   - Limit is the burst: how many requests a key may make at once starting
//     from a full bucket. It is constant for a limiter.
//   - Remaining is how many more requests the key could make right now, after
//     the current one has been counted (so the request that empties the bucket
//     sees 0). A rejected request always sees 0.
//   - ResetAfter is how long until the bucket is full again, i.e. until
//     Remaining would equal Limit if the key stayed idle.
//   - RetryAfter is how long until the next request would be allowed; it is
//     only set on rejections (zero when Allowed).
//
// Keys are opaque strings chosen by the caller (account id, client address);
// each limiter has its own key space, so use one limiter per quota.
package ratelimit
