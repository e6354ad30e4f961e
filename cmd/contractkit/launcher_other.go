//go:build !unix

package main

// watchLauncher does nothing where the launcher shares its console with the
// binary (Windows): there, Ctrl-C reaches both, and nothing is passed on.
func watchLauncher(func(string) string) {}
