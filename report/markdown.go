package report

import (
	"fmt"
	"os"
	"strings"
	"time"

	"contractkit/exchange"
	"contractkit/internal/textcut"
)

// The Markdown report (--markdown): what a CI job's page shows of a run
// (GitHub's job summary, $GITHUB_STEP_SUMMARY; the action.yml at the
// repository's root appends it there): the verdict, the counts per area,
// each failed check with its reason and the curl lines that reproduce it,
// the suite's own failures, the decided differences folded, and what
// changed since the last run (--compare). It is bounded, whatever the
// run: a job summary holds at most 1 MiB.

// Bounds of the Markdown report: the failed checks shown in full (the
// rest are named), the curl lines per check, and the characters of one
// block.
const (
	mdMaxChecks = 50
	mdMaxCurls  = 3
	mdMaxBlock  = 6 << 10
)

// WriteMarkdownFile writes the Markdown report of r to path, keys
// redacted as o says.
func WriteMarkdownFile(path string, r Run, o Options) error {
	return os.WriteFile(path, []byte(Markdown(r, o)), 0o644)
}

// Markdown renders the Markdown report of r. Every text in it passes the
// keys' redactor last: a key in a message a server echoed is hidden too.
func Markdown(r Run, o Options) string {
	r = o.redact(r)
	var b strings.Builder
	t := r.Tally()
	verdict := "passed"
	if !r.Succeeded {
		verdict = "failed"
	}
	fmt.Fprintf(&b, "## Conformance: %s\n\n", verdict)
	fmt.Fprintf(&b, "`%s` · %d passed · %d failed · %d skipped · %d decided-differs · %s\n\n",
		r.Target, t.Total.Passed, t.Total.Failed, t.Total.Skipped, t.Total.DecidedDiffers, r.Duration().Round(time.Millisecond))
	fmt.Fprintf(&b, "contractkit %s · contract %s (sha256 %s)\n\n", r.Info.Module, r.Info.Contract, short(r.Info.ContractSHA256))
	for _, s := range r.Stopped {
		fmt.Fprintf(&b, "**Stopped:** %s\n\n", oneLine(s))
	}
	b.WriteString("| area | passed | failed | skipped | decided-differs |\n|---|---:|---:|---:|---:|\n")
	for _, a := range Areas {
		if c := t.ByArea[a.Label]; c.Selected() > 0 {
			fmt.Fprintf(&b, "| %s | %d | %d | %d | %d |\n", a.Label, c.Passed, c.Failed, c.Skipped, c.DecidedDiffers)
		}
	}
	b.WriteString("\n")
	writeFailedMarkdown(&b, r.Checks)
	for _, f := range r.SuiteFailures {
		fmt.Fprintf(&b, "### Suite failure: %s\n\n%s\n", f.Node, block("text", FirstParagraph(f.Message)))
	}
	writeDifferencesMarkdown(&b, r.Checks)
	if r.Changes != nil {
		b.WriteString(block("text", strings.Join(r.Changes.Lines(), "\n")))
	}
	if r.Coverage != nil {
		fmt.Fprintf(&b, "%s\n\n", r.Coverage.Line())
	}
	if r.Spent != nil {
		fmt.Fprintf(&b, "Spent: %s\n", oneLine(r.Spent.Line()))
	}
	return exchange.NewRedactor(o.Key, o.Key2).String(b.String())
}

// writeFailedMarkdown writes each failed check: its name, its reason and
// its curl lines; past mdMaxChecks, the names alone.
func writeFailedMarkdown(b *strings.Builder, checks []Check) {
	var failed []Check
	for _, c := range checks {
		if c.State == Failed {
			failed = append(failed, c)
		}
	}
	if len(failed) == 0 {
		return
	}
	fmt.Fprintf(b, "### Failed checks (%d)\n\n", len(failed))
	for i, c := range failed {
		if i == mdMaxChecks {
			fmt.Fprintf(b, "And %d more (the HTML and JSON reports have them all):\n\n", len(failed)-i)
			for _, rest := range failed[i:] {
				fmt.Fprintf(b, "- %s\n", escapeMarkdown(rest.Name()))
			}
			b.WriteString("\n")
			return
		}
		fmt.Fprintf(b, "#### %s\n\n", escapeMarkdown(c.Name()))
		b.WriteString(block("text", FirstParagraph(c.Reason())))
		if curls := curlsOf(c); len(curls) > 0 {
			b.WriteString(block("sh", strings.Join(curls, "\n")))
		}
	}
}

// writeDifferencesMarkdown folds the decided differences (they fail the run
// only under --strict, where they are failed checks above) into a
// details element, each with its curl line.
func writeDifferencesMarkdown(b *strings.Builder, checks []Check) {
	var lines []string
	for _, c := range checks {
		if c.State != DecidedDiffers {
			continue
		}
		for _, d := range c.Differences {
			line := fmt.Sprintf("- %s (%s: %s)", escapeMarkdown(c.Name()), d.Decision, escapeMarkdown(d.What))
			if d.Curl != "" {
				line += "\n\n" + indent(block("sh", d.Curl), "  ")
			}
			lines = append(lines, line)
		}
		if len(lines) >= mdMaxChecks {
			lines = append(lines, "- … (the HTML and JSON reports have them all)")
			break
		}
	}
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(b, "<details><summary>Decided differences (reported; --strict fails them)</summary>\n\n%s\n\n</details>\n\n", strings.Join(lines, "\n"))
}

// curlsOf are the curl lines that reproduce a failed check: those of the
// exchanges its judgements name, else its last exchange's.
func curlsOf(c Check) []string {
	var out []string
	for _, x := range c.Reproduce {
		if x != nil && x.Curl != "" && len(out) < mdMaxCurls {
			out = append(out, x.Curl)
		}
	}
	for _, d := range c.Differences {
		if d.Curl != "" && len(out) < mdMaxCurls {
			out = append(out, d.Curl)
		}
	}
	if len(out) == 0 && len(c.Exchanges) > 0 {
		if x := c.Exchanges[len(c.Exchanges)-1]; x != nil && x.Curl != "" {
			out = append(out, x.Curl)
		}
	}
	return out
}

// block is a fenced code block of s, bounded to mdMaxBlock bytes, its fence
// longer than any run of backticks in s.
func block(lang, s string) string {
	if cut := textcut.Shorten(s, mdMaxBlock); cut != s {
		s = cut + "\n(cut: the HTML and JSON reports have it whole)"
	}
	fence := "```"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	return fence + lang + "\n" + strings.TrimRight(s, "\n") + "\n" + fence + "\n\n"
}

// escapeMarkdown keeps a check's name as text: no emphasis, link or HTML.
func escapeMarkdown(s string) string {
	return strings.NewReplacer("\\", "\\\\", "`", "\\`", "*", "\\*", "_", "\\_", "[", "\\[", "]", "\\]", "<", "&lt;", ">", "&gt;", "|", "\\|", "\n", " ").Replace(s)
}

func indent(s, prefix string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return prefix + strings.Join(lines, "\n"+prefix)
}

func oneLine(s string) string { return strings.ReplaceAll(strings.TrimSpace(s), "\n", " ") }

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}
