package report

import (
	"encoding/xml"
	"fmt"
	"os"
	"strings"
)

// The JUnit XML report, in the structure CI systems read (and Ginkgo's
// own JUnit reporter wrote before the reports owned their model):
// testsuites, one testsuite with the run's <property> elements, a testcase
// per check ("[It] containers sentence [labels]") with a <failure>,
// <error> (interrupted, panicked) or <skipped> element and the explaining
// text in <system-err>, and a testcase per failed suite node
// ("[AfterSuite]").

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Tests    int          `xml:"tests,attr"`
	Disabled int          `xml:"disabled,attr"`
	Errors   int          `xml:"errors,attr"`
	Failures int          `xml:"failures,attr"`
	Time     float64      `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Package    string          `xml:"package,attr"`
	Tests      int             `xml:"tests,attr"`
	Disabled   int             `xml:"disabled,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Errors     int             `xml:"errors,attr"`
	Failures   int             `xml:"failures,attr"`
	Time       float64         `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Status    string        `xml:"status,attr"`
	Time      float64       `xml:"time,attr"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
	Error     *junitFailure `xml:"error,omitempty"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	SystemErr string        `xml:"system-err,omitempty"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

// junitFailure is a <failure> or an <error>: the message, the kind, and
// the message with its location as the element's text.
type junitFailure struct {
	Message     string `xml:"message,attr"`
	Type        string `xml:"type,attr"`
	Description string `xml:",chardata"`
}

// junitProperties are the run's properties: the verdict, what judged the
// server (build, contract, flags), the coverage line and what was spent.
func junitProperties(r Run) []junitProperty {
	props := []junitProperty{
		{"SuiteSucceeded", fmt.Sprint(r.Succeeded)},
		{"SpecialSuiteFailureReason", strings.Join(r.Stopped, ",")},
		{"contractkit.version", r.Info.Module},
		{"contractkit.revision", r.Info.Revision},
		{"contract.version", r.Info.Contract},
		{"contract.sha256", r.Info.ContractSHA256},
		{"conformance.flags", strings.Join(r.Info.Flags, " ")},
	}
	if r.Coverage != nil {
		props = append(props, junitProperty{"contract.coverage", r.Coverage.Line()})
	}
	if r.Spent != nil {
		props = append(props, junitProperty{PropertySpent, r.Spent.Line()})
	}
	return props
}

// junitOf is the JUnit document of r.
func junitOf(r Run) junitSuites {
	s := junitSuite{Name: r.Suite, Package: r.Suite, Time: r.Duration().Seconds(),
		Timestamp: r.Start.Format("2006-01-02T15:04:05"), Properties: junitProperties(r)}
	for _, c := range r.Checks {
		name := strings.TrimSpace("[It] " + strings.Join(append(append([]string{}, c.Path...), c.Behaviour), " "))
		if len(c.Labels) > 0 {
			name += " [" + strings.Join(c.Labels, ", ") + "]"
		}
		tc := junitCase{Name: name, Classname: r.Suite, Status: string(c.State), Time: c.Duration.Seconds()}
		switch c.State {
		case Skipped:
			tc.Skipped = &junitSkipped{Message: "skipped - " + c.SkipReason}
			s.Skipped++
		case NotSelected:
			tc.Skipped = &junitSkipped{Message: "not selected"}
			s.Skipped++
		case Pending:
			tc.Skipped = &junitSkipped{Message: "pending"}
			s.Disabled++
		case Failed:
			f := Failure{Kind: "failed"}
			if c.Failure != nil {
				f = *c.Failure
			}
			tc.Status = f.Kind
			s.addFailure(&tc, f)
		}
		var text []string
		if reason := c.Reason(); reason != "" && c.State != Failed {
			text = append(text, reason)
		}
		tc.SystemErr = strings.Join(append(text, details(c, false)...), "\n\n")
		s.Cases = append(s.Cases, tc)
	}
	for _, f := range r.SuiteFailures {
		tc := junitCase{Name: "[" + f.Node + "]", Classname: r.Suite, Status: f.Kind}
		s.addFailure(&tc, f.Failure)
		s.Cases = append(s.Cases, tc)
	}
	s.Tests = len(s.Cases)
	return junitSuites{Tests: s.Tests, Disabled: s.Disabled + s.Skipped, Errors: s.Errors, Failures: s.Failures,
		Time: s.Time, Suites: []junitSuite{s}}
}

// addFailure gives tc its <failure> or, for a check interrupted or
// panicked, its <error>, and counts it.
func (s *junitSuite) addFailure(tc *junitCase, f Failure) {
	el := &junitFailure{Message: f.Message, Type: f.Kind, Description: f.Message}
	if loc := f.Location.String(); loc != "" {
		el.Description += "\nat " + loc
	}
	if f.Stack != "" {
		el.Description += "\n" + f.Stack
	}
	switch f.Kind {
	case "interrupted", "panicked":
		tc.Error = el
		s.Errors++
	default:
		tc.Failure = el
		s.Failures++
	}
}

// WriteJUnitFile writes the JUnit report of r to path, keys redacted as o
// says.
func WriteJUnitFile(path string, r Run, o Options) error {
	out, err := xml.MarshalIndent(junitOf(o.redact(r)), "  ", "    ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append([]byte(xml.Header), append(out, '\n')...), 0o644)
}
