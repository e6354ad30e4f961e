//go:build race

package refmodel_test

// raceOn: the race detector is on (it multiplies a driven run's time by
// ten and adds nothing to a one-caller model's tests).
const raceOn = true
