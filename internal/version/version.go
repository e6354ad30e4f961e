// Package version says what a binary was built from: the module version and
// revision, and the contract (spec/openapi.yaml) it embeds, so that a report
// or a bug names exactly which contract it judged against.
package version

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"runtime/debug"
	"sync"

	"go.yaml.in/yaml/v3"

	"contractkit/spec"
)

// Version is the release, set at link time:
//
//	go build -ldflags "-X contractkit/internal/version.Version=v1.2.0" ./cmd/...
//
// Empty, the module version from the build information is used.
var Version = ""

// Info is what a binary was built from.
type Info struct {
	// Module is the release or module version ("(devel)" for a local build).
	Module string `json:"module"`
	// Revision is the VCS commit, when the build recorded one.
	Revision string `json:"revision,omitempty"`
	// Modified reports uncommitted changes in the built tree.
	Modified bool `json:"modified,omitempty"`
	// Contract is info.version of the embedded contract.
	Contract string `json:"contract"`
	// ContractSHA256 is the hash of the embedded spec/openapi.yaml bytes.
	ContractSHA256 string `json:"contract_sha256"`
	// Go is the toolchain that built the binary.
	Go string `json:"go"`
}

var get = sync.OnceValue(func() Info {
	i := Info{Module: Version, Contract: contractVersion(spec.Document)}
	sum := sha256.Sum256(spec.Document)
	i.ContractSHA256 = hex.EncodeToString(sum[:])
	if bi, ok := debug.ReadBuildInfo(); ok {
		i.Go = bi.GoVersion
		if i.Module == "" {
			i.Module = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				i.Revision = s.Value
			case "vcs.modified":
				i.Modified = s.Value == "true"
			}
		}
	}
	if i.Module == "" {
		i.Module = "(devel)"
	}
	return i
})

// Get returns the running binary's Info.
func Get() Info { return get() }

// String is the line --version prints.
func (i Info) String() string {
	rev := ""
	if i.Revision != "" {
		rev = " rev " + short(i.Revision)
		if i.Modified {
			rev += "+modified"
		}
	}
	return fmt.Sprintf("%s%s; contract %s (spec/openapi.yaml sha256:%s); %s", i.Module, rev, i.Contract, short(i.ContractSHA256), i.Go)
}

func short(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

// contractVersion reads info.version without loading the whole document.
func contractVersion(doc []byte) string {
	var d struct {
		Info struct {
			Version string `yaml:"version"`
		} `yaml:"info"`
	}
	if yaml.Unmarshal(doc, &d) != nil || d.Info.Version == "" {
		return "unknown"
	}
	return d.Info.Version
}
