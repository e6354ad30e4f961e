package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"net/http"
	"os"
	"testing"
	"time"
)

// TestMain lets the test binary be the bare server, as the loadtest binary
// is when startBare runs it.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == bareCommand {
		if err := serveBare(os.Args[2:]); err != nil {
			os.Exit(exitFail)
		}
		os.Exit(exitOK)
	}
	os.Exit(m.Run())
}

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestParseFlags(t *testing.T) {
	m := &Main{Stdout: io.Discard, Stderr: io.Discard}
	if err := m.ParseFlags([]string{"--rounds", "1"}, env(map[string]string{"LOADTEST_CONNS": "8", "LOADTEST_ROUNDS": "5"})); err != nil {
		t.Fatal(err)
	}
	if m.cfg.rounds != 1 || m.cfg.conns != 8 || m.cfg.modes != "ratio,streams" {
		t.Errorf("rounds %d conns %d modes %q: want the flag over the environment, the environment over the default", m.cfg.rounds, m.cfg.conns, m.cfg.modes)
	}
	for name, args := range map[string][]string{
		"unknown flag": {"--port", "1"},
		"an argument":  {"extra"},
		"bad mode":     {"--mode", "ratio,speed"},
		"zero rounds":  {"--rounds", "0"},
	} {
		m := &Main{Stdout: io.Discard, Stderr: io.Discard}
		if err := m.ParseFlags(args, env(nil)); err == nil || errors.Is(err, flag.ErrHelp) {
			t.Errorf("%s: got %v, want a usage error", name, err)
		}
	}
	if err := (&Main{Stdout: io.Discard, Stderr: io.Discard}).ParseFlags([]string{"-h"}, env(nil)); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h: got %v, want flag.ErrHelp", err)
	}
}

// TestTheBareServerStartsOnPortZero: startBare runs this binary as the
// bare server on a port the system picks, reads its address back, and the
// server repeats the canned answer until stopped.
func TestTheBareServerStartsOnPortZero(t *testing.T) {
	c := canned{Status: http.StatusTeapot, Header: http.Header{"X-Canned": {"yes"}}, Body: []byte("short and stout")}
	p, stop, err := startBare(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Get("http://" + p.Addr + "/anything")
	if err != nil {
		stop()
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != c.Status || resp.Header.Get("X-Canned") != "yes" || string(b) != string(c.Body) {
		t.Errorf("got %d %v %q, want the canned answer", resp.StatusCode, resp.Header, b)
	}
	stop()
	select {
	case <-p.Exited():
	default:
		t.Error("the bare server is still running after stop")
	}
}

func TestPprofAddr(t *testing.T) {
	got, err := pprofAddr([]string{"No --api-key given", "pprof on http://127.0.0.1:41234/debug/pprof/", "mockserver listening on http://127.0.0.1:5 (1 account(s))"})
	if err != nil || got != "127.0.0.1:41234" {
		t.Errorf("got %q, %v", got, err)
	}
	if _, err := pprofAddr([]string{"mockserver listening on http://127.0.0.1:5"}); err == nil {
		t.Error("no error without a pprof line")
	}
}
