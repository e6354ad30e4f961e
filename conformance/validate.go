package conformance

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"regexp"

	"github.com/onsi/ginkgo/v2/types"
)

// Validate reports every configuration error at once. It opens each report
// file for writing (creating it), so an unwritable path is a usage error
// before anything is sent.
func (c Config) Validate() error {
	var errs []error
	u, err := url.Parse(c.BaseURL)
	switch {
	case c.BaseURL == "":
		errs = append(errs, errors.New("--base-url is required"))
	case err != nil:
		errs = append(errs, fmt.Errorf("--base-url: %v", err))
	case u.Scheme != "http" && u.Scheme != "https" || u.Host == "":
		errs = append(errs, fmt.Errorf("--base-url %q: want an absolute http or https URL", c.BaseURL))
	}
	if c.APIKey == "" {
		errs = append(errs, errors.New("--api-key is required"))
	}
	if c.APIKey2 != "" && c.APIKey2 == c.APIKey {
		errs = append(errs, errors.New("--api-key-2 must be another account's key, not the same as --api-key"))
	}
	if c.Timeout <= 0 {
		errs = append(errs, fmt.Errorf("--timeout %s: want a positive duration", c.Timeout))
	}
	if c.Deadline < 0 {
		errs = append(errs, fmt.Errorf("--deadline %s: want a positive duration, 0 for none", c.Deadline))
	}
	if c.MaxMemory < 0 {
		errs = append(errs, fmt.Errorf("--max-memory %d: want a number of MiB", c.MaxMemory))
	}
	if c.Explore < 0 {
		errs = append(errs, fmt.Errorf("--explore %d: want a number of requests, 0 for none", c.Explore))
	}
	errs = append(errs, c.validateSelection()...)
	for flag, path := range map[string]string{"--junit": c.JUnit, "--json": c.JSON, "--html": c.HTML, "--coverage": c.Coverage, "--markdown": c.Markdown} {
		if path == "" {
			continue
		}
		f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %v", flag, err))
			continue
		}
		f.Close()
	}
	return errors.Join(errs...)
}

func (c Config) validateSelection() []error {
	var errs []error
	if c.LabelFilter != "" {
		if _, err := types.ParseLabelFilter(c.LabelFilter); err != nil {
			errs = append(errs, fmt.Errorf("--label-filter: %v", err))
		}
	}
	if c.Focus != "" {
		if _, err := regexp.Compile(c.Focus); err != nil {
			errs = append(errs, fmt.Errorf("--focus: %v", err))
		}
	}
	return errs
}
