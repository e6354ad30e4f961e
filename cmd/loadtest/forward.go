package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"sync"
	"time"

	"contractkit/bound"
)

// forwardCommand is the hidden first argument that turns this binary into
// a bare forwarding proxy: net/http's ReverseProxy with the validating
// proxy's transport settings and nothing else (no tap, no judge, no
// observers). It is the limit row of the proxy/direct ratio: what
// forwarding alone costs on this machine, the floor the judged proxy is
// compared with.
const forwardCommand = "forward-proxy"

// startForward runs this binary as the bare forwarding proxy to target.
func startForward(ctx context.Context, target string) (*proc, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	return start(ctx, "limit", []string{self, forwardCommand, "--target", "http://" + target})
}

// serveForward is the bare forwarding proxy. Its settings are the
// validating proxy's (proxy.New): the transport bound.Transport makes, no
// compression asked for, the answer's headers awaited 2 minutes at most, idle connections kept per target up to 1024,
// pooled 32 KB copy buffers, the answer flushed at its end.
func serveForward(args []string) error {
	fs := flag.NewFlagSet(forwardCommand, flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:0", "listen address")
	target := fs.String("target", "", "the server forwarded to (URL)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	u, err := url.Parse(*target)
	if err != nil || u.Host == "" {
		return fmt.Errorf("--target %q: want http://HOST:PORT", *target)
	}
	tr := bound.Transport(http.DefaultTransport.(*http.Transport), bound.HeaderBytes)
	tr.DisableCompression = true
	tr.MaxIdleConns, tr.MaxIdleConnsPerHost = 0, 1024
	tr.ResponseHeaderTimeout = 2 * time.Minute // the proxy's default header wait
	rp := &httputil.ReverseProxy{
		Rewrite:    func(pr *httputil.ProxyRequest) { pr.SetURL(u) },
		Transport:  tr,
		BufferPool: forwardBuffers{},
		ErrorLog:   log.New(io.Discard, "", 0),
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	fmt.Printf("forward proxy listening on http://%s\n", ln.Addr())
	srv := &http.Server{Handler: rp, ReadHeaderTimeout: 10 * time.Second, MaxHeaderBytes: 64 << 10}
	err = srv.Serve(ln)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// forwardBuffers is the validating proxy's BufferPool, copied.
type forwardBuffers struct{}

var forwardBufferPool = sync.Pool{New: func() any { return new([32 << 10]byte) }}

func (forwardBuffers) Get() []byte { return forwardBufferPool.Get().(*[32 << 10]byte)[:] }
func (forwardBuffers) Put(b []byte) {
	if len(b) == 32<<10 {
		forwardBufferPool.Put((*[32 << 10]byte)(b))
	}
}
