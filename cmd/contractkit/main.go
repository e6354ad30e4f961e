// Command contractkit is the mock and the conformance suite in one binary,
// the one the npm package ships (npm/): `contractkit mock [flags]` is
// cmd/mockserver, `contractkit conformance [flags]` (and `contractkit
// conformance proxy`) is cmd/conformance, each with the same flags and
// environment variables. One binary, because the two share the Go runtime,
// the embedded contract, its validators and most of their packages: stripped,
// the pair is about 63 MB and the one binary about 37 MB per platform.
package main

import (
	"fmt"
	"io"
	"os"

	suitecli "contractkit/conformance/cli"
	"contractkit/internal/version"
	mockcli "contractkit/mockserver/cli"
)

// Exit statuses of the dispatch itself; each command has its own.
const (
	exitOK    = 0
	exitUsage = 2
)

func main() {
	watchLauncher(os.Getenv)
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr, os.Getenv))
}

// run dispatches on the command, the first argument.
func run(args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "mock":
		return mockcli.Command(args[1:], stdout, stderr, getenv)
	case "conformance":
		return suitecli.Command(args[1:], stdout, stderr, getenv)
	case "version", "--version", "-version":
		fmt.Fprintln(stdout, "contractkit", version.Get())
		return exitOK
	case "help", "--help", "-help", "-h":
		usage(stdout)
		return exitOK
	}
	fmt.Fprintf(stderr, "contractkit: unknown command %q\n\n", args[0])
	usage(stderr)
	return exitUsage
}

func usage(w io.Writer) {
	fmt.Fprint(w, `Usage: contractkit COMMAND [flags]

The contract kit of the Model, Dataset, Conversation, Evaluation and Inference
Service API v1.

Commands:
  mock          the stateful mock server (its flags: contractkit mock --help;
                each also read from MOCK_<FLAG>, e.g. MOCK_ADDR)
  conformance   the conformance suite against any server, and
                "conformance proxy", the validating proxy (contractkit
                conformance --help; each flag also read from CONFORMANCE_<FLAG>)
  version       print the version, the contract's version and its sha256

The help of each command names it as its own binary (mockserver, conformance):
the flags are the same.
`)
}
