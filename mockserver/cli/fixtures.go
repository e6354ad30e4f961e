package cli

import (
	"fmt"
	"strings"

	"contractkit/fixtures"
	"contractkit/mockserver"
)

// fixturesFlag is the repeatable --fixtures: SET preloads every account
// no rule names, PATTERN=SET the accounts of the keys PATTERN matches
// (configured or opened by --open-keys). A SET is "default" (the built-in
// set), "none" (an empty account) or a directory. In the environment the
// values are comma-separated: MOCK_FIXTURES='default,empty-*=none'.
type fixturesFlag struct {
	def   *string   // the SET of every other account
	rules *[]string // PATTERN=SET, in the order given: the first match wins
}

func (f fixturesFlag) String() string {
	if f.def == nil {
		return "default"
	}
	return strings.Join(append([]string{*f.def}, *f.rules...), ",")
}

func (f fixturesFlag) Set(v string) error {
	for _, part := range strings.Split(v, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		pattern, set, isRule := strings.Cut(part, "=")
		if !isRule {
			*f.def = part
			continue
		}
		if err := mockserver.CheckKeyPattern(pattern); err != nil {
			return err
		}
		if strings.TrimSpace(set) == "" {
			return fmt.Errorf("%s=: name a set (default, none or a directory)", pattern)
		}
		*f.rules = append(*f.rules, part)
	}
	return nil
}

// loadFixtures reads the sets --fixtures names into the config; a
// directory named twice is read once.
func (m *Main) loadFixtures() error {
	sets := map[string]*fixtures.Bundle{}
	load := func(name string) (*fixtures.Bundle, error) {
		switch name {
		case "none":
			return nil, nil
		case "default", "":
			name = "default"
		}
		if b, ok := sets[name]; ok {
			return b, nil
		}
		var b fixtures.Bundle
		if name == "default" {
			b = fixtures.Default()
		} else {
			var err error
			if b, err = fixtures.Load(name); err != nil {
				return nil, fmt.Errorf("--fixtures: %w", err)
			}
		}
		sets[name] = &b
		return &b, nil
	}
	var err error
	if m.cfg.Fixtures, err = load(m.fixtures); err != nil {
		return err
	}
	m.cfg.FixtureRules = nil
	for _, r := range m.fixtureRules {
		pattern, name, _ := strings.Cut(r, "=")
		b, err := load(strings.TrimSpace(name))
		if err != nil {
			return err
		}
		m.cfg.FixtureRules = append(m.cfg.FixtureRules, mockserver.FixtureRule{Pattern: pattern, Fixtures: b})
	}
	return nil
}
