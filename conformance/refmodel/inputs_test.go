package refmodel_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"contractkit/conformance/inputs"
	"contractkit/conformance/refmodel/drive"
	"contractkit/spec"
)

// The input side complete by construction, the twin of
// TestEveryFieldOfEveryAnswerIsPredicted: every operation of the contract
// is walked (package inputs derives its dimensions: values, alternatives,
// encodings, id intents, fault pairs, repeats, bursts, states), and each
// dimension must have a generator in the driver and be sent by the default
// run against the mock, whatever the seed — or be one the run says it does
// not send, and why.
func TestModelReachesEveryInputDimension(t *testing.T) {
	proofs(t)
	r := run(t, startMock(t, nil), 1, 0)
	for _, gap := range drive.Complete(drive.Catalog(), r) {
		t.Error(gap)
	}
	if len(r.Found) > 0 {
		t.Errorf("the mock and the model disagree:\n%s", r.Explain(r.Found))
	}
	t.Logf("%d calls; input coverage:\n%s", len(r.Steps), r.Inputs())
}

// A field added to a copy of the contract is named until the driver sends
// it: its values are not reached by a run that never heard of it, and a
// refusal of its own (a new x-refuse rule) has no generator.
func TestModelNamesAnAddedInput(t *testing.T) {
	proofs(t)
	r := run(t, startMock(t, nil), 1, 0)
	anchor := []byte("        query:\n          type: string\n          minLength: 1\n")
	if !bytes.Contains(spec.Document, anchor) {
		t.Fatal("the InferenceRequest anchor moved")
	}
	added := append([]byte("        priority:\n          type: string\n          enum: [low, high]\n          x-seed: '4.4'\n"+
		"          x-refuse: [ { rule: checksum, status: 422, decision: D-23 } ]\n"), anchor...)
	raw := bytes.Replace(spec.Document, anchor, added, 1)
	strict, err := spec.Build(raw)
	if err != nil {
		t.Fatal(err)
	}
	relaxed, err := spec.Relax(raw)
	if err != nil {
		t.Fatal(err)
	}
	declared, err := spec.Build(relaxed)
	if err != nil {
		t.Fatal(err)
	}
	gaps := drive.Complete(inputs.Read(strict, declared), r)
	for _, want := range []string{
		"runInference body:priority = absent: not reached by the run",
		"runInference body:priority = low: not reached by the run",
		"runInference body:priority = high: not reached by the run",
		`runInference body:priority = "not-a-member" (outside its enum): not reached by the run`,
		`runInference key + rule → 401: runInference: no generator breaks the x-refuse rule "checksum"`,
	} {
		if !slices.Contains(gaps, want) {
			t.Errorf("the added field is not named: no line\n  %s\nin\n  %s", want, strings.Join(gaps, "\n  "))
		}
	}
	for _, g := range gaps {
		if !strings.HasPrefix(g, "runInference ") || !strings.Contains(g, "priority") && !strings.Contains(g, "rule") {
			t.Errorf("a gap beyond the added field: %s", g)
		}
	}
	if base := drive.Complete(drive.Catalog(), r); len(base) > 0 {
		t.Errorf("the contract as it is has gaps:\n  %s", strings.Join(base, "\n  "))
	}
}
