package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"time"

	"contractkit/internal/childserver"
)

// apiKey is the key the measured mock accepts.
const apiKey = "loadtest-key"

// bareCommand is the hidden first argument that turns this binary into the
// bare server, so that it runs in its own process like the mock.
const bareCommand = "bare-server"

// proc is a server this command started.
type proc struct {
	name string
	*childserver.Server
}

// stop ends the server: an interrupt, then a kill after 10 seconds.
func (p *proc) stop() { p.Stop(10 * time.Second) }

// listening matches the line each server prints once it listens: the mock
// ("mockserver listening on http://ADDR (...)"), the bare server, the
// proxy ("proxy listening on http://ADDR → TARGET") and Prism ("Prism is
// listening on http://ADDR").
var listening = regexp.MustCompile(`listening on http://(\S+)`)

// start runs a server told to listen on port 0 and reads back the address
// it prints (internal/childserver); its standard error goes to /dev/null:
// the log is not measured here.
func start(ctx context.Context, name string, args []string) (*proc, error) {
	devNull, err := os.Open(os.DevNull)
	if err != nil {
		return nil, err
	}
	defer devNull.Close() // the child has its own copy once started
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Stderr = devNull
	s, err := childserver.Start(ctx, name, cmd, listening, 60*time.Second)
	if err != nil {
		return nil, err
	}
	return &proc{name: name, Server: s}, nil
}

var setupClient = &http.Client{Timeout: 30 * time.Second}

// startMock runs the mock binary on a port the system picks, with extra
// flags.
func startMock(ctx context.Context, cfg config, extra ...string) (*proc, error) {
	args := append([]string{cfg.mockBin, "--addr", "127.0.0.1:0", "--api-key", apiKey, "--log-level", cfg.logLevel, "--train-duration", "0"}, extra...)
	return start(ctx, "mock", args)
}

// startProxy runs the validating proxy (conformance proxy) on a port the
// system picks, in front of the server at target, with extra flags.
func startProxy(ctx context.Context, cfg config, target string, extra ...string) (*proc, error) {
	args := append([]string{cfg.proxyBin, "proxy", "--listen", "127.0.0.1:0", "--target", "http://" + target}, extra...)
	return start(ctx, "proxy", args)
}

// startPrism runs Prism 5 on the contract, or returns nil when it is not
// installed.
func startPrism(ctx context.Context, cfg config) (*proc, error) {
	if cfg.prismBin == "none" {
		return nil, nil
	}
	if _, err := os.Stat(cfg.prismBin); err != nil {
		return nil, nil
	}
	return start(ctx, "Prism", []string{cfg.prismBin, "mock", cfg.specPath, "-h", "127.0.0.1", "-p", "0"})
}

// canned is the answer the bare server repeats: the mock's own answer.
type canned struct {
	Status int
	Header http.Header
	Body   []byte
}

// capture asks the mock once and keeps its answer, minus the headers net/http
// computes itself.
func capture(addr string, method, path string, body []byte) (canned, error) {
	req, err := http.NewRequest(method, "http://"+addr+path, bytes.NewReader(body))
	if err != nil {
		return canned{}, err
	}
	req.Header.Set("Authorization", "Bearer "+apiKey)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := setupClient.Do(req)
	if err != nil {
		return canned{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return canned{}, err
	}
	if resp.StatusCode != http.StatusOK {
		return canned{}, fmt.Errorf("%s %s: %d %.200s", method, path, resp.StatusCode, b)
	}
	h := resp.Header.Clone()
	h.Del("Date")
	h.Del("Content-Length")
	return canned{Status: resp.StatusCode, Header: h, Body: b}, nil
}

// startBare runs this binary as the bare server repeating c.
func startBare(ctx context.Context, c canned) (*proc, func(), error) {
	f, err := os.CreateTemp("", "loadtest-canned-*.json")
	if err != nil {
		return nil, nil, err
	}
	cleanup := func() { os.Remove(f.Name()) }
	if err := json.NewEncoder(f).Encode(c); err != nil {
		f.Close()
		cleanup()
		return nil, nil, err
	}
	f.Close()
	self, err := os.Executable()
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	p, err := start(ctx, "bare", []string{self, bareCommand, "--answer", f.Name()})
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	return p, func() { p.stop(); cleanup() }, nil
}

// serveBare is the bare server: net/http with one handler that drains the
// body and writes the canned answer — the floor any Go server pays.
func serveBare(args []string) error {
	fs := flag.NewFlagSet(bareCommand, flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:0", "listen address")
	answer := fs.String("answer", "", "canned answer (JSON)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	b, err := os.ReadFile(filepath.Clean(*answer))
	if err != nil {
		return err
	}
	var c canned
	if err := json.Unmarshal(b, &c); err != nil {
		return err
	}
	h := func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		for k, v := range c.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(c.Status)
		_, _ = w.Write(c.Body)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	fmt.Printf("bare server listening on http://%s\n", ln.Addr())
	srv := &http.Server{Handler: http.HandlerFunc(h), ReadHeaderTimeout: 10 * time.Second}
	err = srv.Serve(ln)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// readyModel finds a ready model of the mock's fixtures.
func readyModel(addr string) (int64, error) {
	c, err := capture(addr, http.MethodGet, "/api/v1/user/model", nil)
	if err != nil {
		return 0, err
	}
	var env struct {
		Data []struct {
			ID     int64  `json:"id"`
			Status string `json:"status"`
		} `json:"data"`
	}
	if err := json.Unmarshal(c.Body, &env); err != nil {
		return 0, err
	}
	for _, m := range env.Data {
		if m.Status == "ready" {
			return m.ID, nil
		}
	}
	return 0, errors.New("the mock's fixtures have no ready model")
}

// resetMock empties the measured account and preloads the fixtures again
// (their ids stay the same), so every round against the mock starts from
// the same state: a round of POSTs stores tens of thousands of
// conversations, and a mock holding more of them collects garbage longer.
func resetMock(addr string) error {
	if _, err := capture(addr, http.MethodPost, "/admin/reset", nil); err != nil {
		return fmt.Errorf("resetting the mock: %w", err)
	}
	return nil
}

// rssKB reads VmRSS of pid from /proc (Linux).
func rssKB(pid int) (int64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte("VmRSS:")); ok {
			f := bytes.Fields(v)
			if len(f) == 0 {
				break
			}
			return strconv.ParseInt(string(f[0]), 10, 64)
		}
	}
	return 0, errors.New("no VmRSS in /proc status")
}

// clockTick is the unit of utime and stime in /proc/PID/stat: USER_HZ,
// 100 on every Linux architecture Go supports.
const clockTick = 10 * time.Millisecond

// cpuTime is the user plus system CPU time the process has used so far.
func cpuTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	// The command name (field 2) may hold spaces: count from after it.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, errors.New("malformed /proc stat")
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 13 { // state is field 3; utime and stime are 14 and 15
		return 0, errors.New("short /proc stat")
	}
	utime, err1 := strconv.ParseInt(string(f[11]), 10, 64)
	stime, err2 := strconv.ParseInt(string(f[12]), 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, err
	}
	return time.Duration(utime+stime) * clockTick, nil
}
