package version

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"contractkit/spec"
)

func TestGetNamesTheEmbeddedContract(t *testing.T) {
	i := Get()
	if i.Contract != "v1" {
		t.Errorf("Contract = %q, want v1 (info.version of spec/openapi.yaml)", i.Contract)
	}
	sum := sha256.Sum256(spec.Document)
	if want := hex.EncodeToString(sum[:]); i.ContractSHA256 != want {
		t.Errorf("ContractSHA256 = %q, want %q", i.ContractSHA256, want)
	}
	if i.Module == "" || i.Go == "" {
		t.Errorf("Module %q and Go %q must be set", i.Module, i.Go)
	}
	if s := i.String(); !strings.Contains(s, "contract v1") || !strings.Contains(s, i.ContractSHA256[:12]) {
		t.Errorf("String() = %q: want the contract version and hash", s)
	}
}

func TestStringShowsRevision(t *testing.T) {
	i := Info{Module: "v1.2.0", Revision: "0123456789abcdef", Modified: true, Contract: "v1", ContractSHA256: "ffffffffffffffff", Go: "go1.26"}
	got := i.String()
	want := "v1.2.0 rev 0123456789ab+modified; contract v1 (spec/openapi.yaml sha256:ffffffffffff); go1.26"
	if got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

func TestContractVersion(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{"openapi: 3.0.3\ninfo:\n  title: x\n  version: v7\n", "v7"},
		{"openapi: 3.0.3\n", "unknown"},
		{"::: not yaml", "unknown"},
	} {
		if got := contractVersion([]byte(tc.doc)); got != tc.want {
			t.Errorf("contractVersion(%q) = %q, want %q", tc.doc, got, tc.want)
		}
	}
}
