//go:build !race

package proxy

// raceDetector: see race_on_test.go.
const raceDetector = false
