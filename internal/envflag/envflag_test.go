package envflag

import (
	"flag"
	"strings"
	"testing"
	"time"
)

func TestApply(t *testing.T) {
	env := map[string]string{"T_ADDR": "from-env", "T_WAIT": "3s", "T_LEVEL": "from-env", "T_ON": "true"}
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	addr := fs.String("addr", "default", "")
	wait := fs.Duration("wait", time.Second, "")
	level := fs.String("level", "default", "")
	on := fs.Bool("on", false, "")
	other := fs.String("other", "default", "")
	if err := fs.Parse([]string{"--level", "from-flag"}); err != nil {
		t.Fatal(err)
	}
	if err := Apply(fs, Prefixed("T_"), func(k string) string { return env[k] }); err != nil {
		t.Fatal(err)
	}
	if *addr != "from-env" || *wait != 3*time.Second || *level != "from-flag" || !*on || *other != "default" {
		t.Errorf("got addr=%q wait=%v level=%q on=%v other=%q", *addr, *wait, *level, *on, *other)
	}
}

func TestApplyReportsEveryBadValueWithoutEchoingIt(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.Duration("wait", 0, "")
	fs.Int("n", 0, "")
	_ = fs.Parse(nil)
	err := Apply(fs, Prefixed("T_"), func(k string) string { return "secret-" + k })
	if err == nil {
		t.Fatal("bad values accepted")
	}
	if strings.Contains(err.Error(), "secret-") {
		t.Errorf("error %q echoes the value", err)
	}
	for _, want := range []string{"T_WAIT", "T_N"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
}

func TestName(t *testing.T) {
	if got, want := Name("MOCK_", "train-duration"), "MOCK_TRAIN_DURATION"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
