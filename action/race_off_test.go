//go:build !race

package action_test

const raceEnabled = false
