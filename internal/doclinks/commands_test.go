package doclinks

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	conformancecli "contractkit/conformance/cli"
	mockcli "contractkit/mockserver/cli"
)

// What the command blocks of the guides are held to, where a test can run
// them: a command needs a server, a key or a browser, but its make target
// and its flags can be checked without any. So every `make TARGET` named
// in code (a fenced block or an inline span) is a target of the Makefile,
// and every --flag given to one of the kit's commands — mockserver,
// conformance, `conformance proxy`, mutation, loadtest, however started:
// `go run ./cmd/X`, `bin/X`, `npx contractkit mock`, `contractkit
// conformance`, a container's command — is a flag that command's --help
// lists. The mock's and the suite's --help are their command lines' own
// (mockserver/cli, conformance/cli), run in process; mutation and loadtest
// are package main, built once only when a guide gives one of them a flag.

// command is one invocation of a kit command found in a guide.
type command struct {
	where string // file:line
	name  string // mockserver, conformance, proxy, mutation, loadtest
	flags []string
	make  []string // the targets, for make
}

// targetName is how a make target is spelt in the guides.
var targetName = regexp.MustCompile(`^[a-z0-9][a-z0-9_.-]*$`)

// shellSep ends a command: a pipe, a list, a redirection, a comment.
var shellSep = regexp.MustCompile(`^(\||\|\||&&|;|&|>|>>|2>|2>&1|#.*|\)|\$\(.*)$`)

// commands finds the invocations in a file's code.
func commands(path, text string) []command {
	var out []command
	code := parse(text).code
	for i := 0; i < len(code); i++ {
		l := code[i]
		logical := l.text
		for strings.HasSuffix(strings.TrimSpace(logical), `\`) && i+1 < len(code) && code[i+1].n == l.n+1+strings.Count(logical, "\n") {
			logical = strings.TrimSuffix(strings.TrimSpace(logical), `\`) + "\n" + code[i+1].text
			i++
		}
		out = append(out, invocations(loc(path, l.n), strings.Fields(logical))...)
	}
	return out
}

// invocations reads the kit's commands out of one logical line's words.
func invocations(where string, words []string) []command {
	var out []command
	for i := 0; i < len(words); i++ {
		w := strings.Trim(words[i], `"'`)
		name, next := "", i+1
		switch {
		case w == "make" && (i == 0 || !strings.HasSuffix(words[i-1], "=")):
			c := command{where: where, name: "make"}
			for _, a := range rest(words[next:]) {
				if a = strings.TrimRight(a, ").,;:"); targetName.MatchString(a) { // not a flag, a VAR=value or a PLACEHOLDER
					c.make = append(c.make, a)
				}
			}
			if len(c.make) > 0 {
				out = append(out, c)
			}
			continue
		case i > 0 && words[i-1] == "make":
			continue // a target, not a command
		case w == "go" && next+1 < len(words) && words[next] == "run" && strings.HasPrefix(words[next+1], "./cmd/"):
			name, next = strings.TrimPrefix(words[next+1], "./cmd/"), next+2
		case slices.Contains([]string{"contractkit", "@contractkit/mock", "bin/contractkit", "node_modules/.bin/contractkit"}, w) && next < len(words):
			switch words[next] {
			case "mock":
				name, next = "mockserver", next+1
			case "conformance":
				name, next = "conformance", next+1
			}
		default:
			switch strings.TrimPrefix(w, "bin/") {
			case "mockserver", "conformance", "mutation", "loadtest":
				name = strings.TrimPrefix(w, "bin/")
			}
		}
		if name == "" {
			continue
		}
		if name == "contractkit" && next < len(words) {
			name, next = map[string]string{"mock": "mockserver", "conformance": "conformance"}[words[next]], next+1
		}
		if name == "conformance" && next < len(words) && words[next] == "proxy" {
			name, next = "proxy", next+1
		}
		c := command{where: where, name: name}
		i = next - 1 // the subcommand's words are not commands again
		for _, a := range rest(words[next:]) {
			a = strings.Trim(a, `[]"'`)
			if f, ok := strings.CutPrefix(a, "--"); ok && f != "" {
				f, _, _ = strings.Cut(f, "=")
				c.flags = append(c.flags, f)
			}
		}
		out = append(out, c)
	}
	return out
}

// rest is the words up to the first that ends the command.
func rest(words []string) []string {
	for i, w := range words {
		if shellSep.MatchString(w) {
			return words[:i]
		}
	}
	return words
}

// makeTargets are the targets the Makefile defines.
func makeTargets(t *testing.T) map[string]bool {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	rule := regexp.MustCompile(`^([A-Za-z0-9_.-][A-Za-z0-9_. -]*?)\s*:([^=]|$)`)
	out := map[string]bool{}
	for _, l := range strings.Split(string(raw), "\n") {
		if m := rule.FindStringSubmatch(l); m != nil {
			for _, name := range strings.Fields(m[1]) {
				out[name] = true
			}
		}
	}
	if !out["test"] || !out["help"] {
		t.Fatalf("the Makefile's targets read as %v: no test or help", out)
	}
	return out
}

// helpFlags are the flags a --help text lists (as --name or, in the flag
// package's own usage, -name), and --help itself, which every command
// takes.
func helpFlags(help string) map[string]bool {
	out := map[string]bool{"help": true}
	for _, m := range regexp.MustCompile(`(?m)(?:^|[\s(\[,|])--?([a-z0-9][a-z0-9-]*)`).FindAllStringSubmatch(help, -1) {
		out[m[1]] = true
	}
	return out
}

// help runs a command's --help: the mock's and the suite's in process,
// the others built once.
func help(t *testing.T, name string) map[string]bool {
	t.Helper()
	var out bytes.Buffer
	noEnv := func(string) string { return "" }
	switch name {
	case "mockserver":
		mockcli.Command([]string{"--help"}, &out, &out, noEnv)
	case "conformance":
		conformancecli.Command([]string{"--help"}, &out, &out, noEnv)
	case "proxy":
		conformancecli.Command([]string{"proxy", "--help"}, &out, &out, noEnv)
	default:
		bin := filepath.Join(t.TempDir(), name)
		build := exec.Command("go", "build", "-o", bin, "./cmd/"+name)
		build.Dir = root
		if b, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build ./cmd/%s: %v\n%s", name, err, b)
		}
		cmd := exec.Command(bin, "--help")
		cmd.Stdout, cmd.Stderr = &out, &out
		_ = cmd.Run() // --help's exit status differs between the commands; its text is what counts
	}
	flags := helpFlags(out.String())
	if len(flags) < 4 {
		t.Fatalf("%s --help lists %d flags:\n%s", name, len(flags), out.String())
	}
	return flags
}

// Every make target and every flag the README's and the guides' commands
// name exists.
func TestEveryCommandBlockNamesWhatExists(t *testing.T) {
	targets := makeTargets(t)
	helps := map[string]map[string]bool{}
	checked := map[string]int{}
	for _, path := range guides(t) {
		text, err := readFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range commands(path, text) {
			if c.name == "make" {
				for _, target := range c.make {
					checked["make"]++
					if !targets[target] {
						t.Errorf("%s: make %s: the Makefile has no target %s", c.where, target, target)
					}
				}
				continue
			}
			if len(c.flags) == 0 {
				continue
			}
			if helps[c.name] == nil {
				helps[c.name] = help(t, c.name)
			}
			for _, f := range c.flags {
				checked[c.name]++
				if !helps[c.name][f] {
					t.Errorf("%s: %s --%s: %s --help lists no such flag", c.where, c.name, f, c.name)
				}
			}
		}
	}
	t.Logf("checked: %v", checked)
	for _, name := range []string{"make", "mockserver", "conformance", "proxy"} {
		if checked[name] == 0 {
			t.Errorf("no %s command checked in the README and the guides: the reader finds none", name)
		}
	}
}

// The command reader, on the shapes the guides use.
func TestCommandsAreRead(t *testing.T) {
	text := "```sh\n" +
		"make run ADDR=127.0.0.1:9000   # the mock\n" +
		"go run ./cmd/conformance --base-url http://x --api-key KEY [--api-key-2 KEY2] | tee log\n" +
		"npx contractkit mock --open-keys 'test-*' --help\n" +
		"docker run --rm -p 8080:8080 contractkit \\\n    conformance proxy --target http://x --junit=/r/j.xml\n" +
		"make conformance BASE_URL=x API_KEY=y\n" +
		"```\n\nRun `mutation --only '^hostile-'` or `make -j2 fuzz-short soak-short`; `conformance/CLAUSES.md` is no command.\n"
	got := commands(filepath.Join(root, "README.md"), text)
	var lines []string
	for _, c := range got {
		lines = append(lines, c.where+" "+c.name+" "+strings.Join(c.flags, ",")+strings.Join(c.make, ","))
	}
	want := []string{
		"README.md:2 make run",
		"README.md:3 conformance base-url,api-key,api-key-2",
		"README.md:4 mockserver open-keys,help",
		"README.md:5 proxy target,junit",
		"README.md:7 make conformance",
		"README.md:10 mutation only",
		"README.md:10 make fuzz-short,soak-short",
	}
	if !slices.Equal(lines, want) {
		t.Errorf("commands:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}
