// Package ci_test checks the CI recipes under examples/ci: they are YAML their
// runners accept in shape, and every flag and environment variable they give
// the kit's binaries exists, so a recipe cannot rot as the CLIs change.
package ci_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// binaries are the kit's commands a recipe may call, with the prefix of
// their environment variables.
var binaries = map[string]string{"conformance": "CONFORMANCE_", "mockserver": "MOCK_"}

func TestRecipesUseOnlyExistingFlags(t *testing.T) {
	flags := knownFlags(t)
	for _, file := range []string{"github-actions.yml", "gitlab-ci.yml"} {
		t.Run(file, func(t *testing.T) {
			scripts, env := recipe(t, file)
			if len(scripts) == 0 {
				t.Fatal("no script found")
			}
			calls := 0
			for _, s := range scripts {
				for _, c := range invocations(s) {
					calls++
					for _, f := range c.flags {
						if !flags[c.bin][f] {
							t.Errorf("%s is given --%s, which it does not have (its flags: %v)", c.bin, f, sorted(flags[c.bin]))
						}
					}
				}
				env = append(env, assignedVars(s)...)
			}
			if calls < 3 {
				t.Errorf("found %d calls of the kit's binaries, want the mock started and the suite run (>= 3)", calls)
			}
			for _, v := range env {
				if !knownEnv(flags, v) {
					t.Errorf("environment variable %s names no flag", v)
				}
			}
		})
	}
}

func TestRecipesKeepTheReports(t *testing.T) {
	for _, file := range []string{"github-actions.yml", "gitlab-ci.yml"} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		for _, want := range []string{"--junit reports/", "reports/"} {
			if !strings.Contains(text, want) {
				t.Errorf("%s: want %q", file, want)
			}
		}
	}
	gh, _ := os.ReadFile("github-actions.yml")
	if !regexp.MustCompile(`(?s)if: always\(\)\s+uses: actions/upload-artifact`).Match(gh) {
		t.Error("github-actions.yml: the reports must be uploaded whatever the verdict (if: always())")
	}
	gl, _ := os.ReadFile("gitlab-ci.yml")
	if !regexp.MustCompile(`(?s)when: always.*junit: reports/`).Match(gl) {
		t.Error("gitlab-ci.yml: artifacts must be kept always and the JUnit report declared")
	}
}

// recipe returns the shell scripts of a recipe and the names of the
// environment variables it sets for them (only those of the kit's binaries).
func recipe(t *testing.T, file string) (scripts, env []string) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("not YAML: %v", err)
	}
	var walk func(key string, v any)
	walk = func(key string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, val := range x {
				if k == "env" || k == "variables" {
					if m, ok := val.(map[string]any); ok {
						for name := range m {
							env = append(env, name)
						}
					}
				}
				walk(k, val)
			}
		case []any:
			for _, val := range x {
				walk(key, val)
			}
		case string:
			if key == "run" || key == "script" {
				scripts = append(scripts, x)
			}
		}
	}
	walk("", doc)
	env = slices.DeleteFunc(env, func(v string) bool { return !isKitVar(v) })
	return scripts, env
}

type call struct {
	bin   string
	flags []string
}

var (
	binRe  = regexp.MustCompile(`(?:^|[\s/])(conformance|mockserver)$`)
	flagRe = regexp.MustCompile(`^--?([a-z0-9][a-z0-9-]*)(?:=.*)?$`)
	varRe  = regexp.MustCompile(`\b([A-Z][A-Z0-9_]*)=`)
)

// invocations finds the kit's binaries called in a shell script and the
// flags each is given (a backslash continues a command on the next line).
func invocations(script string) []call {
	script = strings.ReplaceAll(script, "\\\n", " ")
	var out []call
	for _, line := range strings.Split(script, "\n") {
		words := strings.Fields(line)
		for i, w := range words {
			m := binRe.FindStringSubmatch(" " + w)
			if m == nil || !strings.Contains(w, "bin/") {
				continue
			}
			c := call{bin: m[1]}
			for _, a := range words[i+1:] {
				if a == "|" || a == ">" || a == "&&" || a == "&" || strings.HasPrefix(a, ">") || a == "2>&1" {
					break
				}
				if f := flagRe.FindStringSubmatch(a); f != nil {
					c.flags = append(c.flags, f[1])
				}
			}
			out = append(out, c)
		}
	}
	return out
}

func assignedVars(script string) []string {
	var out []string
	for _, m := range varRe.FindAllStringSubmatch(script, -1) {
		if isKitVar(m[1]) {
			out = append(out, m[1])
		}
	}
	return out
}

func isKitVar(v string) bool {
	for _, p := range binaries {
		if strings.HasPrefix(v, p) {
			return true
		}
	}
	return false
}

func knownEnv(flags map[string]map[string]bool, v string) bool {
	for bin, prefix := range binaries {
		for f := range flags[bin] {
			if prefix+strings.ToUpper(strings.ReplaceAll(f, "-", "_")) == v {
				return true
			}
		}
	}
	return false
}

// knownFlags builds the binaries and reads the flags their --help lists.
func knownFlags(t *testing.T) map[string]map[string]bool {
	t.Helper()
	dir := t.TempDir()
	build := exec.Command("go", "build", "-o", dir+string(filepath.Separator), "./cmd/conformance", "./cmd/mockserver")
	build.Dir = filepath.Join("..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	helpRe := regexp.MustCompile(`(?m)^\s+--?([a-z0-9][a-z0-9-]*)`)
	out := map[string]map[string]bool{}
	for bin := range binaries {
		help, _ := exec.Command(filepath.Join(dir, bin), "--help").CombinedOutput()
		out[bin] = map[string]bool{}
		for _, m := range helpRe.FindAllStringSubmatch(string(help), -1) {
			out[bin][m[1]] = true
		}
		if len(out[bin]) < 5 {
			t.Fatalf("%s --help listed %d flags:\n%s", bin, len(out[bin]), help)
		}
	}
	return out
}

func sorted(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
