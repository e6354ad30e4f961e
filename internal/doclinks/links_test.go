// Package doclinks is the guides' index: a test (no code) that README.md
// and the guides it links (docs/*.md) hold together. Every relative link
// names a file of the repository and every #anchor a heading of its file,
// by GitHub's own slug rules; every `make TARGET` they name is a target of
// the Makefile, and every flag a command of theirs passes is one its
// --help lists (commands_test.go). The README was split into the guides:
// a link or a command that moved, or a heading renamed, fails here before
// a reader meets it.
package doclinks

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// root is the repository, from this package's directory.
const root = "../.."

// guides are the files the index covers: the README and docs/*.md.
func guides(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil || len(files) < 4 {
		t.Fatalf("docs/*.md: %v %q (want the four guides and more)", err, files)
	}
	return append([]string{filepath.Join(root, "README.md")}, files...)
}

// doc is a Markdown file as the checks read it: its lines outside fenced
// code (inline code spans blanked), and the code: each fenced block's
// lines and each inline code span.
type doc struct {
	prose []line
	code  []line
}

type line struct {
	n    int
	text string
}

var (
	fenceRE = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})")
	spanRE  = regexp.MustCompile("(`+)(.+?)`+")
)

func parse(text string) doc {
	var d doc
	fence := ""
	for i, l := range strings.Split(text, "\n") {
		n := i + 1
		if m := fenceRE.FindStringSubmatch(l); m != nil {
			switch {
			case fence == "":
				fence = m[1]
				continue
			case strings.HasPrefix(strings.TrimSpace(l), fence) && strings.Trim(strings.TrimSpace(l), fence[:1]) == "":
				fence = ""
				continue
			}
		}
		if fence != "" {
			d.code = append(d.code, line{n, l})
			continue
		}
		for _, m := range spanRE.FindAllStringSubmatch(l, -1) {
			d.code = append(d.code, line{n, m[2]})
		}
		d.prose = append(d.prose, line{n, spanRE.ReplaceAllStringFunc(l, func(s string) string {
			return strings.Repeat("x", len(s)) // keeps a link's brackets, hides what is code
		})})
	}
	return d
}

var (
	headingRE  = regexp.MustCompile(`^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$`)
	htmlIDRE   = regexp.MustCompile(`<a\s+(?:id|name)="([^"]+)"`)
	mdLinkRE   = regexp.MustCompile(`\[([^\]]*)\]\(([^)\s]+)\)`)
	tagRE      = regexp.MustCompile(`<[^>]*>`)
	refLinkRE  = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s+(\S+)`)
	schemeLike = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
)

// slug is GitHub's anchor of a heading's text (github-slugger): the text
// as rendered (a link's text kept, tags and code marks gone), lower case,
// every character that is not a letter, a digit, a mark, '_', '-' or a
// space dropped, each space a '-' (two in a row stay two).
func slug(heading string) string {
	s := mdLinkRE.ReplaceAllString(heading, "$1")
	s = tagRE.ReplaceAllString(s, "")
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.M, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors are the #fragments a file's headings and explicit anchors give,
// a repeated slug numbered as GitHub does (x, x-1, x-2).
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	raw := strings.Split(text, "\n")
	for _, l := range parse(text).prose {
		for _, m := range htmlIDRE.FindAllStringSubmatch(l.text, -1) {
			out[m[1]] = true
		}
		if m := headingRE.FindStringSubmatch(raw[l.n-1]); m != nil {
			s := slug(m[1])
			if k := seen[s]; k > 0 {
				out[s+"-"+strconv.Itoa(k)] = true
			} else {
				out[s] = true
			}
			seen[s]++
		}
	}
	return out
}

// brokenLinks lists each relative link of the file at path (its text
// given) whose file or anchor does not resolve; read reads another file.
func brokenLinks(path, text string, read func(string) (string, error)) []string {
	var broken []string
	targets := func(l line) []string {
		var out []string
		for _, m := range mdLinkRE.FindAllStringSubmatch(l.text, -1) {
			out = append(out, m[2])
		}
		if m := refLinkRE.FindStringSubmatch(l.text); m != nil {
			out = append(out, m[1])
		}
		return out
	}
	for _, l := range parse(text).prose {
		for _, target := range targets(l) {
			target = strings.Trim(target, "<>")
			if schemeLike.MatchString(target) || strings.HasPrefix(target, "//") {
				continue // http(s), mailto: not this index's
			}
			file, frag, _ := strings.Cut(target, "#")
			file, _, _ = strings.Cut(file, "?")
			body, dest := text, path
			if file != "" {
				dest = filepath.Join(filepath.Dir(path), filepath.FromSlash(file))
				b, err := read(dest)
				if err != nil {
					broken = append(broken, loc(path, l.n)+": "+target+": no such file")
					continue
				}
				body = b
			}
			if frag != "" && strings.HasSuffix(dest, ".md") && !anchors(body)[frag] {
				broken = append(broken, loc(path, l.n)+": "+target+": no heading has the anchor #"+frag)
			}
		}
	}
	return broken
}

func loc(path string, n int) string {
	rel, err := filepath.Rel(root, path)
	if err != nil {
		rel = path
	}
	return filepath.ToSlash(rel) + ":" + strconv.Itoa(n)
}

// readFile reads a file of the repository ("" for a directory, which a
// link may name).
func readFile(path string) (string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if info.IsDir() {
		return "", nil
	}
	b, err := os.ReadFile(path)
	return string(b), err
}

// Every relative link and #anchor of the README and the guides resolves.
func TestEveryLinkAndAnchorResolves(t *testing.T) {
	links := 0
	for _, path := range guides(t) {
		text, err := readFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range parse(text).prose {
			links += len(mdLinkRE.FindAllString(l.text, -1))
		}
		for _, b := range brokenLinks(path, text, readFile) {
			t.Error(b)
		}
	}
	if links < 50 {
		t.Fatalf("%d links in the README and the guides: the index reads none of them", links)
	}
}

// The README is one screen per audience: at most 400 lines, each
// audience's section linking its guide, and it names the test command
// (.ci/run runs "the README's test command").
func TestTheREADMEIsShortAndLinksEachGuide(t *testing.T) {
	text, err := readFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(text, "\n"); n > 400 {
		t.Errorf("README.md has %d lines, want at most 400: move the detail into its guide under docs/", n)
	}
	for _, guide := range []string{"docs/frontend.md", "docs/ci.md", "docs/contract.md", "docs/contributing.md", "docs/PERFORMANCE.md"} {
		if !strings.Contains(text, "]("+guide) {
			t.Errorf("README.md does not link %s", guide)
		}
	}
	if !slices.ContainsFunc(parse(text).code, func(l line) bool { return strings.HasPrefix(l.text, "make test ") }) {
		t.Errorf("README.md does not give the test command `make test` in a command block")
	}
}

// The slug rules and the checker, on GitHub's own anchors and on links
// that do not resolve.
func TestSlugAndBrokenLinks(t *testing.T) {
	for heading, want := range map[string]string{
		"For a frontend team: `npm i -D @contractkit/mock`":           "for-a-frontend-team-npm-i--d-contractkitmock",
		"A frontend team's first ten minutes":                         "a-frontend-teams-first-ten-minutes",
		"The reference model: every field of every answer predicted":  "the-reference-model-every-field-of-every-answer-predicted",
		"Playwright: the mock as a webServer, one account per worker": "playwright-the-mock-as-a-webserver-one-account-per-worker",
		"See [the guide](docs/x.md) <em>now</em> → 4×4_é":             "see-the-guide-now--44_é",
	} {
		if got := slug(heading); got != want {
			t.Errorf("slug(%q) = %q, want %q", heading, got, want)
		}
	}
	files := map[string]string{
		filepath.Join(root, "docs", "a.md"): "# A\n\n## Twice\n\n## Twice\n\n```sh\n# not a heading\n```\n",
	}
	read := func(p string) (string, error) {
		if s, ok := files[p]; ok {
			return s, nil
		}
		return "", os.ErrNotExist
	}
	text := "# R\n\n[ok](docs/a.md#twice-1) [ok](#r) [ok](https://x.example/#y) `[code](nowhere.md)`\n" +
		"[bad](docs/a.md#twice-2) [bad](docs/b.md) [bad](#not-a-heading) [bad](docs/a.md#a-1)\n\n[ref]: docs/c.md\n"
	got := brokenLinks(filepath.Join(root, "README.md"), text, read)
	want := []string{
		"README.md:4: docs/a.md#twice-2: no heading has the anchor #twice-2",
		"README.md:4: docs/b.md: no such file",
		"README.md:4: #not-a-heading: no heading has the anchor #not-a-heading",
		"README.md:4: docs/a.md#a-1: no heading has the anchor #a-1",
		"README.md:6: docs/c.md: no such file",
	}
	if !slices.Equal(got, want) {
		t.Errorf("brokenLinks:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
