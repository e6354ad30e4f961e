package conformance

import (
	"strings"
	"testing"
	"time"
)

func TestFlagLineRedactsKeys(t *testing.T) {
	cfg := Config{BaseURL: "http://127.0.0.1:1/?k=secret-one", APIKey: "secret-one", APIKey2: "secret-two",
		JUnit: "r.xml", Timeout: 30 * time.Second, Strict: true, LabelFilter: "auth"}
	got := strings.Join(cfg.flagLine(), " ")
	for _, key := range []string{"secret-one", "secret-two"} {
		if strings.Contains(got, key) {
			t.Fatalf("flag line %q shows a key", got)
		}
	}
	for _, want := range []string{"--api-key=<redacted>", "--api-key-2=<redacted>", "--junit=r.xml", "--timeout=30s", "--strict", "--label-filter=auth"} {
		if !strings.Contains(got, want) {
			t.Errorf("flag line %q lacks %q", got, want)
		}
	}
	if def := strings.Join(Config{BaseURL: "http://x", Timeout: DefaultTimeout}.flagLine(), " "); strings.Contains(def, "timeout") {
		t.Errorf("the default timeout is not a flag the run used: %q", def)
	}
}
