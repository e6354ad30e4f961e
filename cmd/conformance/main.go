// Command conformance certifies a server against the API contract: see
// --help, and the exit statuses there (0 pass, 1 fail, 2 usage, 3
// unreachable). Its subcommand `conformance proxy` is the validating proxy.
// The command line is package conformance/cli, which `contractkit
// conformance` (cmd/contractkit) runs too.
package main

import (
	"os"

	"contractkit/conformance/cli"
)

func main() {
	os.Exit(cli.Command(os.Args[1:], os.Stdout, os.Stderr, os.Getenv))
}
