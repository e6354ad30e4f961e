//go:build !race

package refmodel_test

// raceOn: the race detector is on.
const raceOn = false
