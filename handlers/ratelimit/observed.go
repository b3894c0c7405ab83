package ratelimit

import "context"

// Observed returns l calling rejected for every request it refuses, so
// refusals can be counted by limiter without each caller doing it. It
// returns l itself when either is nil.
func Observed(l Limiter, rejected func()) Limiter {
	if l == nil || rejected == nil {
		return l
	}
	return observed{l, rejected}
}

type observed struct {
	Limiter
	rejected func()
}

func (o observed) Allow(ctx context.Context, key string) (Result, error) {
	res, err := o.Limiter.Allow(ctx, key)
	if err == nil && !res.Allowed {
		o.rejected()
	}
	return res, err
}
