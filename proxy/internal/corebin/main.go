// Command corebin is the validating proxy's core alone, as a program: it
// forwards to a target, judges every exchange and prints each finding as
// it happens — no flags, no reports, no coverage, no recording. It exists
// to weigh the core: the README states the size of its binary beside the
// conformance binary's, and package proxy's dependency test builds it and
// reads its symbols.
//
//	corebin TARGET_URL [HOST:PORT]
package main

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"time"

	"contractkit/proxy"
)

func main() {
	if len(os.Args) < 2 || len(os.Args) > 3 {
		fmt.Fprintln(os.Stderr, "usage: corebin TARGET_URL [HOST:PORT]")
		os.Exit(2)
	}
	target, err := url.Parse(os.Args[1])
	if err != nil || target.Host == "" {
		fmt.Fprintf(os.Stderr, "corebin: %q: want an absolute URL\n", os.Args[1])
		os.Exit(2)
	}
	addr := proxyAddr
	if len(os.Args) == 3 {
		addr = os.Args[2]
	}
	srv := &http.Server{Addr: addr, Handler: proxy.New(target, proxy.NewLog(os.Stdout)), ReadHeaderTimeout: 10 * time.Second}
	fmt.Printf("proxy listening on http://%s → %s\n", addr, target)
	err = srv.ListenAndServe()
	fmt.Fprintf(os.Stderr, "corebin: %v\n", err)
	os.Exit(1)
}

// proxyAddr is where it listens without a second argument.
const proxyAddr = "127.0.0.1:8081"
