// Package pprofserve serves net/http/pprof on its own listener and mux, for
// the --pprof flag of the mock and of the validating proxy: the profiling
// endpoints never reach the mux that serves the traffic (where they would
// answer without a key), and only a loopback address is accepted, since a
// profile shows request paths and memory contents.
package pprofserve

import (
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"time"
)

// Listen listens on addr (a loopback HOST:PORT) and returns the server of
// the profiling endpoints, to Serve on it.
func Listen(addr string) (net.Listener, *http.Server, error) {
	if err := CheckLoopback(addr); err != nil {
		return nil, nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, fmt.Errorf("--pprof: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return ln, &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}, nil
}

// CheckLoopback accepts HOST:PORT only when HOST is a loopback IP or
// "localhost".
func CheckLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--pprof %q: %v", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("--pprof %q: only a loopback address is allowed (e.g. 127.0.0.1:6060)", addr)
	}
	return nil
}
