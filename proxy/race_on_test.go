//go:build race

package proxy

// raceDetector: the race detector slows the proxy and the mock some four
// times; load tests send fewer requests under it.
const raceDetector = true
