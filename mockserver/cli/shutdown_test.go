package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain lets a test run the mock's Command in a child process (the
// SIGTERM test below), configured through the MOCK_* environment.
func TestMain(m *testing.M) {
	if os.Getenv("MOCKSERVER_TEST_CHILD") == "1" {
		os.Exit(Command(nil, os.Stdout, os.Stderr, os.Getenv))
	}
	os.Exit(m.Run())
}

// A real process that receives SIGTERM with inference streams open ends
// each of them with an error chunk and [DONE], then exits 0.
func TestSIGTERMEndsOpenStreams(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "MOCKSERVER_TEST_CHILD=1", "MOCK_ADDR=127.0.0.1:0", "MOCK_API_KEY=term-key",
		"MOCK_LOG_LEVEL=error", "MOCK_TOKEN_INTERVAL=1h") // the first token never comes
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() { _ = cmd.Process.Kill() }()

	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if _, a, ok := strings.Cut(sc.Text(), "listening on http://"); ok {
				addr <- strings.Fields(a)[0]
			}
		}
	}()
	var base string
	select {
	case a := <-addr:
		base = "http://" + a
	case <-time.After(patience):
		t.Fatal("the child did not start listening")
	}
	client := &http.Client{Timeout: patience} // bounds every read below
	model := readyModelID(t, client, base)

	const streams = 3
	bodies := make([]*bufio.Reader, streams)
	for i := range bodies {
		req, _ := http.NewRequest(http.MethodPost, base+"/api/v1/user/inference",
			strings.NewReader(fmt.Sprintf(`{"query":"warranty","model_id":%d}`, model)))
		req.Header.Set("Authorization", "Bearer term-key")
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("stream %d: status %d", i, resp.StatusCode)
		}
		bodies[i] = bufio.NewReader(resp.Body)
		if _, err := bodies[i].ReadString('\n'); err != nil { // the stream is open
			t.Fatal(err)
		}
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for i, b := range bodies {
		rest, err := io.ReadAll(b)
		if err != nil {
			t.Fatalf("stream %d after SIGTERM: %v", i, err)
		}
		var data []string
		for _, line := range strings.Split(string(rest), "\n") {
			if d, ok := strings.CutPrefix(line, "data: "); ok {
				data = append(data, d)
			}
		}
		if n := len(data); n < 2 || data[n-1] != "[DONE]" || !strings.Contains(data[n-2], `"type":"error"`) {
			t.Errorf("stream %d ended with %q, want an error chunk then [DONE]", i, data)
		}
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("the child exited with %v, want status 0", err)
		}
	case <-time.After(patience):
		t.Fatal("the child did not exit after SIGTERM")
	}
}

func readyModelID(t *testing.T, client *http.Client, base string) int64 {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, base+"/api/v1/user/model", nil)
	req.Header.Set("Authorization", "Bearer term-key")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var env struct {
		Data []struct {
			ID     int64   `json:"id"`
			Status *string `json:"status"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
		t.Fatal(err)
	}
	for _, m := range env.Data {
		if m.Status != nil && *m.Status == "ready" {
			return m.ID
		}
	}
	t.Fatal("no ready model in the default fixtures")
	return 0
}
