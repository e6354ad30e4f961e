//go:build !race

package model_test

// raceOn: the race detector is on.
const raceOn = false
