package curl

import (
	"os/exec"
	"strings"
	"testing"
)

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"":                   `''`,
		"plain":              `'plain'`,
		"it's":               `'it'\''s'`,
		`"$HOME" \ ` + "`x`": `'"$HOME" \ ` + "`x`'",
	} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestRefNamesTheVariableAndEscapesTheRest(t *testing.T) {
	if got, want := Ref("Authorization: Bearer s3cret", "s3cret", "API_KEY", nil), `"Authorization: Bearer $API_KEY"`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if got, want := Ref(`say "$x" \ s `+"`y`", "s", "K", nil), `"$Kay \"\$x\" \\ $K \`+"`y\\`"+`"`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	mask := func(s string) string { return strings.ReplaceAll(s, "other", "<masked>") }
	if got, want := Ref("k other k", "k", "K", mask), `"$K <masked> $K"`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// TestLayouts pins both callers' shapes: the suite's one line, the
// journal's one argument per line.
func TestLayouts(t *testing.T) {
	secret := func(s string) string {
		if strings.Contains(s, "KEY1") {
			return Ref(s, "KEY1", "API_KEY", nil)
		}
		return Quote(s)
	}
	tests := []struct {
		name string
		cmd  Command
		want string
	}{
		{"get", Command{Flags: []string{"-sS", "-i"}, Method: "GET", URL: "http://h/x", Word: secret,
			Headers: []Header{{"Authorization", "Bearer KEY1"}}},
			`curl -sS -i 'http://h/x' -H "Authorization: Bearer $API_KEY"`},
		{"post json", Command{Flags: []string{"-sS"}, Method: "POST", URL: "http://h/x?a=1",
			Headers: []Header{{"Content-Type", "application/json"}}, Data: []byte(`{"t":"it's"}`)},
			`curl -sS -X POST 'http://h/x?a=1' -H 'Content-Type: application/json' --data-raw '{"t":"it'\''s"}'`},
		{"empty body kept", Command{Method: "PUT", URL: "u", Data: []byte{}},
			`curl -X PUT 'u' --data-raw ''`},
		{"form, literal fields", Command{Method: "POST", URL: "u", LiteralFields: true,
			Form: []Part{{Name: "n", Value: "@v"}, {Name: "files", File: "dir/a.txt", FileName: "a.txt"}}},
			`curl -X POST 'u' --form-string 'n=@v' -F 'files=@dir/a.txt;filename=a.txt'`},
		{"form, lines", Command{Flags: []string{"-sS", "-N"}, Method: "POST", URL: "u", Lines: true,
			Form: []Part{{Name: "files", File: "a.txt", Type: "text/plain"}, {Name: "n", Value: "v"}}},
			"curl -sS -N -X POST 'u' \\\n  -F 'files=@a.txt;type=text/plain' \\\n  -F 'n=v'"},
		{"tail", Command{Method: "POST", URL: "u", Tail: []string{"--data-binary @body  # too large"}},
			`curl -X POST 'u' --data-binary @body  # too large`},
	}
	for _, tt := range tests {
		if got := tt.cmd.String(); got != tt.want {
			t.Errorf("%s:\ngot  %s\nwant %s", tt.name, got, tt.want)
		}
	}
}

// TestAShellReadsTheWordsBack runs the words through sh: each comes back
// as the value it renders, a secret as its variable's value.
func TestAShellReadsTheWordsBack(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	values := []string{"plain", "it's", `"$HOME"`, `back\slash`, "`date`", "new\nline", "$(id)", "!x"}
	for _, v := range values {
		for _, w := range []string{Quote(v), Ref(v+" S", "S", "SECRET", nil)} {
			cmd := exec.Command(sh, "-c", "printf %s "+w)
			cmd.Env = []string{"SECRET=s3cret"}
			out, err := cmd.Output()
			want := v
			if strings.HasPrefix(w, `"`) {
				want = v + " s3cret"
			}
			if err != nil || string(out) != want {
				t.Errorf("sh read %s as %q (%v), want %q", w, out, err, want)
			}
		}
	}
}
