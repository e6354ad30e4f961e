package report

import (
	"fmt"
	"strings"

	"contractkit/exchange"
)

// details renders what explains a check beyond its reason, one text per
// part, for the HTML report (full: the whole exchange log too) and the
// JUnit report's system-err (without it, as a console shows a failure).
func details(c Check, full bool) []string {
	var out []string
	if len(c.Findings) > 0 {
		out = append(out, "findings:\n  - "+strings.Join(c.Findings.Lines(), "\n  - "))
	}
	for _, x := range c.Reproduce {
		out = append(out, "reproduce:\n"+x.String())
	}
	if c.Retries > 0 {
		out = append(out, fmt.Sprintf("rate-limit retries: %d request(s) repeated after a 429", c.Retries))
	}
	for _, n := range c.Notes {
		out = append(out, n.Name+":\n"+n.Text)
	}
	if full && len(c.Exchanges) > 0 {
		out = append(out, "exchanges:\n"+exchange.Log(c.Exchanges).String())
	}
	return out
}
