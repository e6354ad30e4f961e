package store

import (
	"crypto/sha256"
	"fmt"
	"testing"

	"github.com/google/uuid"
)

// TestUUIDsAreThoseOfEveryEarlierVersion: the ids an account hands out are
// derived from "contractkit-mock/<seed>/<account>/<n>" as they always were
// (a state file and tests' expectations name them).
func TestUUIDsAreThoseOfEveryEarlierVersion(t *testing.T) {
	for _, seed := range []int64{0, 1, -42, 1 << 62} {
		for _, name := range []string{"", "0", "open:a-very-long-account-name-of-an-open-key-test-12345678901234567890"} {
			a := New(Config{Seed: seed}).Account(name)
			for n := uint64(1); n <= 3; n++ {
				sum := sha256.Sum256(fmt.Appendf(nil, "contractkit-mock/%d/%s/%d", seed, name, n))
				var id uuid.UUID
				copy(id[:], sum[:16])
				id[6] = id[6]&0x0f | 0x40
				id[8] = id[8]&0x3f | 0x80
				if got := a.newUUID(); got != id.String() {
					t.Fatalf("seed %d, account %q, #%d: %s, want %s", seed, name, n, got, id)
				}
			}
		}
	}
}
