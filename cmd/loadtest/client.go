package main

import (
	"time"

	"contractkit/internal/loadgen"
)

// The load generator lives in internal/loadgen, shared with the mock's
// ratio benchmarks.
type request = loadgen.Request

func newRequest(name, method, host, path string, header map[string]string, body []byte) request {
	return loadgen.NewRequest(name, method, host, path, header, body)
}

func hammer(addr string, req request, conns int, d time.Duration) loadgen.Result {
	return loadgen.Hammer(addr, req, conns, d)
}
