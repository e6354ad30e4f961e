// Command mockserver serves the contract as a stateful mock: see README.md
// ("The mock server") and `mockserver --help`. The command line is package
// mockserver/cli, which `contractkit mock` (cmd/contractkit) runs too.
package main

import (
	"os"

	"contractkit/mockserver/cli"
)

func main() {
	os.Exit(cli.Command(os.Args[1:], os.Stdout, os.Stderr, os.Getenv))
}
