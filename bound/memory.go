package bound

import (
	"runtime/debug"
)

// SuiteMemory is the bound the suite keeps its own memory under, whatever
// the server sends: 512 MiB.
//
// How: the suite reads one answer at a time (its checks and its explore
// phase send one request after another), every read is bounded (Body:
// 8 MiB, Stream: 32 MiB, HeaderBytes: 1 MiB), and a check's answers are
// dropped when the next check starts. ReadAll's buffer doubles up to the
// bound and no further, so reading a flood leaves about its bound in
// garbage. Measured by TestMemoryUnderAFlood (servers that flood a body, a
// stream and headers, twelve reads, a check holding a body and a stream):
// a heap peak of 106-126 MiB above the start, a process peak of 120-145
// MiB (without the race detector). On top come what the judges make of an
// answer (decoding 8 MiB of JSON into Go values: a few times its size)
// and the contract's two loaded views (about 60 MiB): well under the bound.
//
// LimitMemory sets the runtime's soft limit to SuiteMemory as a backstop:
// near it the collector runs more often instead of letting garbage pile
// up. It is no cap (memory in use is not freed); the read bounds are.
const SuiteMemory = 512 << 20

// LimitMemory sets the Go runtime's soft memory limit to limit bytes,
// unless the environment (getenv) sets GOMEMLIMIT, whose value is the
// user's and wins. It returns the limit in force.
func LimitMemory(limit int64, getenv func(string) string) int64 {
	if getenv("GOMEMLIMIT") != "" {
		return debug.SetMemoryLimit(-1) // -1 reads the limit without changing it
	}
	debug.SetMemoryLimit(limit)
	return limit
}
