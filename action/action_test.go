// Package action_test holds the repository's GitHub Action (action.yml at
// the root, its script run.sh here) to what it promises: run against the
// mock, the step passes and the job's page says so; run against a mutant,
// the step fails with the suite's status and the page names each failed
// check with a curl line that reproduces it; no report shows the key. The
// action's YAML is checked for the shape a runner reads.
package action_test

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"contractkit/conformance"
	"contractkit/conformance/cli"
	"contractkit/internal/mocktest"
	"contractkit/mockserver"
	"contractkit/report"
)

// asConformance makes this test binary the conformance binary the script
// runs (CK_BIN): Ginkgo runs one suite per process, and the binary is
// already built.
const asConformance = "ACTION_TEST_AS_CONFORMANCE"

// key is the account's key; no file the action writes may show it.
const key = "sk-action-test-SECRET-7c1d"

func TestMain(m *testing.M) {
	if os.Getenv(asConformance) == "1" {
		os.Exit(cli.Command(os.Args[1:], os.Stdout, os.Stderr, os.Getenv))
	}
	os.Exit(m.Run())
}

// mock starts the mock with its fixtures, behind the mutant breakName when
// not "".
func mock(t *testing.T, breakName string) string {
	t.Helper()
	return mocktest.Serve(t, mockserver.Config{Keys: []string{key}, TokenInterval: time.Millisecond,
		TrainDuration: time.Second, EvalDuration: time.Second}, breakName).URL
}

// step is one run of the action's script as the runner makes it.
type step struct {
	exit                   int
	summary, output, dir   string
	log, previousOnSummary string
}

// runScript runs run.sh as action.yml does, against base, with a job summary
// that an earlier step already wrote to.
func runScript(t *testing.T, base, args string) step {
	t.Helper()
	if raceEnabled {
		t.Skip("runs the suite in a child process: make go-test runs it without -race (go test -count=1 ./action/)")
	}
	dir := t.TempDir()
	s := step{dir: filepath.Join(dir, "reports"), previousOnSummary: "## An earlier step\n\n"}
	summary, output := filepath.Join(dir, "step-summary.md"), filepath.Join(dir, "output")
	if err := os.WriteFile(summary, []byte(s.previousOnSummary), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "run.sh")
	cmd.Env = append(os.Environ(), asConformance+"=1", "CK_BIN="+os.Args[0], "CK_REPORTS="+s.dir, "CK_ARGS="+args,
		"CONFORMANCE_BASE_URL="+base, "CONFORMANCE_API_KEY="+key, "GITHUB_STEP_SUMMARY="+summary, "GITHUB_OUTPUT="+output)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		s.exit = ee.ExitCode()
	case err != nil:
		t.Fatalf("run.sh: %v\n%s", err, out.String())
	}
	s.log = out.String()
	b, _ := os.ReadFile(summary)
	s.summary = string(b)
	b, _ = os.ReadFile(output)
	s.output = string(b)
	return s
}

// The datasets area alone: a couple of seconds a run, and the mutant below
// fails two of its checks.
const args = "--label-filter datasets --explore 0 --timeout 30s"

func TestActionAgainstTheMockPasses(t *testing.T) {
	s := runScript(t, mock(t, ""), args)
	if s.exit != conformance.ExitPass {
		t.Fatalf("exit %d, want %d\n%s", s.exit, conformance.ExitPass, s.log)
	}
	if !strings.HasPrefix(s.summary, s.previousOnSummary) {
		t.Errorf("the job summary was not appended to:\n%s", s.summary)
	}
	if !strings.Contains(s.summary, "## Conformance: passed") || strings.Contains(s.summary, "Failed checks") {
		t.Errorf("the job summary does not say the run passed:\n%s", s.summary)
	}
	if !strings.Contains(s.output, "exit-code=0\n") || !strings.Contains(s.output, "report="+s.dir+"/report.json") {
		t.Errorf("the step's outputs: %q", s.output)
	}
	for _, f := range []string{"junit.xml", "report.json", "report.html", "summary.md", "conformance.log"} {
		if _, err := os.Stat(filepath.Join(s.dir, f)); err != nil {
			t.Errorf("the reports' directory lacks %s: %v", f, err)
		}
	}
	noKey(t, s)
}

// Against a mutant the step fails with the suite's status, and the job
// summary names each failed check of the JSON report with the curl lines
// that reproduce it.
func TestActionAgainstAMutantNamesEachFailedCheck(t *testing.T) {
	s := runScript(t, mock(t, "dataset-list-as-object"), args)
	if s.exit != conformance.ExitFail {
		t.Fatalf("exit %d, want %d\n%s", s.exit, conformance.ExitFail, s.log)
	}
	r, err := report.ReadJSON(filepath.Join(s.dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var failed []string
	for _, c := range r.Checks {
		if c.State == report.Failed {
			failed = append(failed, c.Name())
		}
	}
	if len(failed) == 0 {
		t.Fatalf("the mutant failed no check:\n%s", s.log)
	}
	page := unescape(s.summary)
	if !strings.Contains(page, "## Conformance: failed") || !strings.Contains(page, "### Failed checks (") {
		t.Errorf("the job summary does not say the run failed:\n%s", s.summary)
	}
	sections := strings.Split(page, "\n#### ")
	for _, name := range failed {
		found := false
		for _, sec := range sections[1:] {
			if strings.HasPrefix(sec, name+"\n") {
				found = true
				if !regexp.MustCompile("(?m)^```+sh\ncurl ").MatchString(sec) {
					t.Errorf("the failed check %q has no curl line on the job's page:\n%s", name, sec)
				}
			}
		}
		if !found {
			t.Errorf("the job summary does not name the failed check %q:\n%s", name, s.summary)
		}
	}
	if !strings.Contains(s.output, "exit-code=1\n") {
		t.Errorf("the step's outputs: %q", s.output)
	}
	noKey(t, s)
}

// A server that cannot be reached gives no report: the job's page says so
// with the suite's last words, and the step fails with exit 3.
func TestActionWithoutAServerSaysWhy(t *testing.T) {
	ts := httptest.NewServer(http.NotFoundHandler())
	base := ts.URL
	ts.Close()
	s := runScript(t, base, "")
	if s.exit != conformance.ExitUnreachable || !strings.Contains(s.summary, "## Conformance: no verdict (exit 3)") ||
		!strings.Contains(s.summary, "cannot be reached") {
		t.Errorf("exit %d, summary:\n%s", s.exit, s.summary)
	}
}

// noKey: neither the job's page, the step's log nor any report shows the key.
func noKey(t *testing.T, s step) {
	t.Helper()
	texts := map[string]string{"the job summary": s.summary, "the step's log": s.log}
	entries, _ := os.ReadDir(s.dir)
	for _, e := range entries {
		b, _ := os.ReadFile(filepath.Join(s.dir, e.Name()))
		texts[e.Name()] = string(b)
	}
	for name, text := range texts {
		if strings.Contains(text, key) {
			t.Errorf("%s shows the key", name)
		}
	}
}

// unescape undoes the Markdown report's escapes of a check's name.
func unescape(s string) string {
	s = regexp.MustCompile("\\\\([\\\\`*_\\[\\]|])").ReplaceAllString(s, "$1")
	return strings.NewReplacer("&lt;", "<", "&gt;", ">").Replace(s)
}

// The action as a runner reads it: a composite action whose required
// inputs are the URL and the key, handed to the script as the suite's
// environment (never on a command line), the reports kept whatever the
// verdict, and only flags the suite has given by the script.
func TestActionYAML(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a struct {
		Inputs map[string]struct {
			Required bool `yaml:"required"`
		} `yaml:"inputs"`
		Runs struct {
			Using string `yaml:"using"`
			Steps []struct {
				ID, If, Uses, Run, Shell string
				Env                      map[string]string
				With                     map[string]string
			} `yaml:"steps"`
		} `yaml:"runs"`
	}
	if err := yaml.Unmarshal(raw, &a); err != nil {
		t.Fatal(err)
	}
	if a.Runs.Using != "composite" || !a.Inputs["base-url"].Required || !a.Inputs["api-key"].Required {
		t.Errorf("using %q, inputs %+v: want a composite action needing base-url and api-key", a.Runs.Using, a.Inputs)
	}
	var ran, kept bool
	for _, st := range a.Runs.Steps {
		if st.Uses == "" && st.Shell == "" {
			t.Errorf("a run step without a shell (a composite action needs one): %q", st.Run)
		}
		if strings.Contains(st.Run, "$GITHUB_ACTION_PATH/action/run.sh") {
			ran = st.Env["CONFORMANCE_BASE_URL"] == "${{ inputs.base-url }}" && st.Env["CONFORMANCE_API_KEY"] == "${{ inputs.api-key }}" &&
				st.Env["CK_ARGS"] == "${{ inputs.args }}" && st.Env["CK_REPORTS"] == "${{ inputs.reports }}" && st.ID == "run"
		}
		if strings.HasPrefix(st.Uses, "actions/upload-artifact@") {
			kept = st.If == "always()" && st.With["path"] == "${{ inputs.reports }}"
		}
	}
	if !ran {
		t.Error("no step runs action/run.sh with the inputs as the suite's environment")
	}
	if !kept {
		t.Error("the reports are not uploaded whatever the verdict (actions/upload-artifact, if: always())")
	}
	var help bytes.Buffer
	_, _ = conformance.ParseFlags([]string{"--help"}, func(string) string { return "" }, &help)
	script, _ := os.ReadFile("run.sh")
	for _, m := range regexp.MustCompile(`"\$bin" ([^|]*)`).FindAllStringSubmatch(strings.ReplaceAll(string(script), "\\\n", " "), -1) {
		for _, f := range regexp.MustCompile(`--[a-z][a-z0-9-]*`).FindAllString(m[1], -1) {
			if !strings.Contains(help.String(), "  "+f+" ") {
				t.Errorf("run.sh gives the suite %s, which --help does not list", f)
			}
		}
	}
}
