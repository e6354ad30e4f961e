package judge

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"

	"contractkit/exchange"
)

// Request judges what x's request breaks of the declared contract: the
// client's side of the exchange, every finding Side Client. A break the
// server must refuse is Declared (served, it is the server's violation:
// Answer); a departure the contract's lenient readings (x-lenient, D-21)
// read as the declared shape is Decided, with the reading's decision: a
// server may serve it. op is the operation (Operation), "" outside the
// contract. Only what was held is judged: a body that was not (x.SentCut)
// leaves the parameters, and a multipart body is the server's to read (as
// the mock reads it, spec.RequestCheck), its part names excepted.
func (j *Judge) Request(op string, x *exchange.Exchange) Findings {
	// The same request again is judged as it was (cache.go).
	k, cacheable := j.requestKey(op, x)
	if cacheable {
		if fs, seen := j.requests.get(k); seen {
			return fs
		}
	}
	fs := j.request(op, x)
	if cacheable && len(fs) <= maxCachedFindings {
		j.requests.put(k, fs)
	}
	return fs
}

func (j *Judge) request(op string, x *exchange.Exchange) Findings {
	var out Findings
	if x.RequestHeader.Get("Authorization") == "" {
		out = append(out, Finding{Pointer: "header:Authorization", Rule: RuleAuth,
			Expected: "Bearer <API key>", Got: "missing", Clause: "5.1"})
	}
	check := j.declared.Request(op)
	if check == nil {
		return client(op, out)
	}
	u := "http://contract.invalid" + x.Path
	if x.RawQuery != "" {
		u += "?" + x.RawQuery
	}
	req, err := http.NewRequest(x.Method, u, bytes.NewReader(x.Sent))
	if err != nil {
		return client(op, append(out, Finding{Rule: RuleSchema, Expected: "a request that parses", Got: err.Error()}))
	}
	req.Header = x.RequestHeader.Clone()
	multipart := mediaType(x.RequestHeader) == "multipart/form-data"
	paramsOnly := x.SentCut || multipart
	if bad := j.bodyType(op, x); bad != nil {
		// A body the operation does not take is not validated as one.
		out, paramsOnly = append(out, *bad), true
	}
	if multipart {
		out = append(out, j.readPartNames(op, exchange.PartNames(x.RequestHeader, x.Sent))...)
	}
	if paramsOnly {
		_, errs := check.ValidateParams(req)
		return client(op, append(out, fromValidation(errs, J{})...))
	}
	ok, errs := check.Validate(req)
	if ok {
		return client(op, out)
	}
	if read, readings := j.readLeniently(op, x.Sent); read != nil {
		rr := req.Clone(req.Context())
		rr.Body, rr.ContentLength = io.NopCloser(bytes.NewReader(read)), int64(len(read))
		_, errs = check.Validate(rr)
		out = append(out, readings...)
		body, _ := ParseJSON(read)
		return client(op, append(out, fromValidation(errs, body)...))
	}
	body, _ := ParseJSON(x.Sent)
	return client(op, append(out, fromValidation(errs, body)...))
}

// client marks every finding as the client's, of operation op.
func client(op string, fs Findings) Findings {
	for i := range fs {
		fs[i].Side, fs[i].Operation = Client, op
	}
	return fs
}

// bodyType is a request body under a content type its operation does not
// document; nil when it does, or the request has no body.
func (j *Judge) bodyType(op string, x *exchange.Exchange) *Finding {
	o, ok := j.declared.Operation(op)
	if !ok || len(x.Sent) == 0 && !x.SentCut {
		return nil
	}
	kin := j.declared.Kin.Paths.Value(o.Path).GetOperation(o.Method)
	if kin == nil || kin.RequestBody == nil || kin.RequestBody.Value == nil {
		return nil
	}
	content := kin.RequestBody.Value.Content
	if content.Get(mediaType(x.RequestHeader)) != nil {
		return nil
	}
	got := "missing"
	if ct := x.RequestHeader.Get("Content-Type"); ct != "" {
		got = fmt.Sprintf("%q", ct)
	}
	return &Finding{Pointer: "header:Content-Type", Rule: RuleContentType,
		Expected: strings.Join(slices.Sorted(maps.Keys(content)), " or "), Got: got, Clause: "1.3"}
}
