package conformance

import "testing"

// A check's text renders the contract's byte counts as D-15 words them.
func TestSizeText(t *testing.T) {
	for n, want := range map[int64]string{
		1 << 20:   "1 MiB",
		100 << 20: "100 MiB",
		16 << 10:  "16 KiB",
		1<<20 + 1: "1048577 bytes",
		0:         "0 bytes",
	} {
		if got := sizeText(n); got != want {
			t.Errorf("sizeText(%d) = %q, want %q", n, got, want)
		}
	}
}
