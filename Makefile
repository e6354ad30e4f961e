# The index of what a developer can do. `make help` lists the targets.
SHELL := /bin/bash
ADDR ?= 127.0.0.1:8080
BASE_URL ?=
API_KEY ?=
API_KEY_2 ?=
NODE_BIN := tools/node_modules/.bin
GO_TEST_FLAGS ?=

.PHONY: fuzz-build npm npm-test api-types model-proof explore-seeds explore-short fuzz fuzz-short soak soak-short help tools docs-assets browser-test run test vet check-lines lint-spec types go-test selftest clauses check-clauses conformance bench bench-proxy loadtest profile profile-proxy mutation build clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-14s %s\n", $$1, $$2}'

# Playwright workers open their own accounts with keys test-0, test-1, ...
# (docs/frontend.md, "Accounts on demand"); OPEN_KEYS= turns it off.
OPEN_KEYS ?= test-*
run: ## start the mock server on ADDR (default 127.0.0.1:8080), keys matching OPEN_KEYS (default test-*) opening their own accounts
	go run ./cmd/mockserver --addr $(ADDR) --open-keys '$(OPEN_KEYS)'

# make test runs two lanes at once (scripts/test-lanes.sh): the Go work
# that keeps both cores busy, and the work that mostly waits (Chromium, npm,
# the suite's own pauses against a mock). Each lane keeps its order and
# stops at its first failure; the binaries are built once, before both.
# The [time] after a target's help is what it took in make test on a clean
# clone on 2 cores (.ci/run, both lanes running): about 19 minutes in all,
# the Go lane the longer. The reference model's proofs (one caller, one
# core) end the waiting lane: in the Go lane they ran alone, the other
# core idle.
TEST_GO_LANE := vet go-test mutation
TEST_WAIT_LANE := lint-spec types check-clauses soak-short selftest explore-short fuzz-short browser-test npm-test model-proof
test: build $(NODE_STAMP) ## everything CI runs, in two lanes at once (TEST_GO_LANE, TEST_WAIT_LANE; each target's time below)
	bash scripts/test-lanes.sh "go=$(TEST_GO_LANE)" "wait=$(TEST_WAIT_LANE)"

vet: ## gofmt, go vet and check-lines [2 s warm]
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	go vet ./...
	@$(MAKE) --no-print-directory check-lines

# One job per file: a file that grows past MAX_LINES does more than one.
# Every non-test .go file of the repository counts, tracked or new.
MAX_LINES := 450
check-lines: ## fail when a non-test .go file is over MAX_LINES (450) lines: split it by job
	@long=$$(git ls-files --cached --others --exclude-standard '*.go' ':!:*_test.go' | sort -u | \
		while read -r f; do [ -f "$$f" ] && n=$$(wc -l < "$$f") && [ "$$n" -gt $(MAX_LINES) ] && echo "  $$f: $$n lines"; done); \
	if [ -n "$$long" ]; then echo "over $(MAX_LINES) lines (split each by job):"; echo "$$long"; exit 1; fi

# A stamp, because npm gives installed files a fixed old mtime.
NODE_STAMP := tools/node_modules/.installed
$(NODE_STAMP): tools/package.json tools/package-lock.json
	cd tools && npm ci --no-audit --no-fund
	@touch $@

tools: $(NODE_STAMP) ## install the pinned Node tools (Spectral, Redocly, openapi-typescript, TypeScript 5.9, openapi-fetch, Playwright, swagger-ui-dist)

# Redocly (spec/redocly.yaml): recommended-strict, every example validated
# against its schema. Any problem it prints, error or warning, fails the
# target; its Node.js deprecation box is left out of the output.
REDOCLY := REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true $(NODE_BIN)/redocly
lint-spec: $(NODE_STAMP) ## lint the contract with Spectral (spectral:oas) and Redocly (recommended-strict, every example validated) [3 s]
	$(NODE_BIN)/spectral lint spec/openapi.yaml --ruleset spec/.spectral.yaml --fail-severity error
	@out=$$($(REDOCLY) lint spec/openapi.yaml --config spec/redocly.yaml --lint-config error --format stylish 2>&1); rc=$$?; \
	grep -v '[╔║╚]' <<<"$$out"; \
	if [ $$rc -ne 0 ] || grep -qE '^ +[0-9]+:[0-9]+ +(error|warning) ' <<<"$$out"; then echo "redocly lint: the contract has problems (see above)"; exit 1; fi

# openapi-typescript's Node API (tools/api-types.mjs): fields with a default
# stay optional to send (its CLI's --default-non-nullable false), and a file
# part is a Blob (its documented transform), not a string. docs/contract.md gives
# frontend teams this same script. The result ships in the npm package and
# is committed (API_TYPES): a team never runs the generator, and make types
# fails when the file is stale.
TYPES_GEN := node tools/api-types.mjs spec/openapi.yaml
API_TYPES := npm/mock/types/api.d.ts
TSC_FLAGS := --noEmit --strict --target es2022
api-types: $(NODE_STAMP) ## regenerate npm/mock/types/api.d.ts (the shipped types) from spec/openapi.yaml
	$(TYPES_GEN) $(API_TYPES)

types: $(NODE_STAMP) ## the shipped TypeScript types: fresh against the contract, and clients compiled through them (openapi-fetch, satisfies, an upload through formData) [4 s]
	@grep -qF '$(TYPES_GEN)' docs/contract.md || { echo "types: docs/contract.md does not give the command make types runs ($(TYPES_GEN) OUT.d.ts)"; exit 1; }
	@grep -qF 'typescript@5.9' docs/contract.md || { echo "types: docs/contract.md's generation command must name the TypeScript it needs (typescript@5.9: TypeScript 7 breaks openapi-typescript 7.13)"; exit 1; }
	mkdir -p build
	$(TYPES_GEN) build/api.d.ts
	@bad=$$(grep -E '@description' build/api.d.ts | sed 's/Contract notes:.*//' | grep -E '§|seed|\bD-[0-9]{2}\b|x-[a-z]+' || true); \
	if [ -n "$$bad" ]; then echo "types: a generated comment opens with the contract's notes, not plain words (spec/notes.go):"; echo "$$bad"; exit 1; fi
	@diff -u $(API_TYPES) build/api.d.ts > build/api.d.ts.diff || { head -n 40 build/api.d.ts.diff; echo "types: $(API_TYPES) is stale against spec/openapi.yaml: run make api-types and commit it"; exit 1; }
	$(NODE_BIN)/tsc $(TSC_FLAGS) --module nodenext --moduleResolution nodenext npm/mock/types/index.d.ts npm/mock/lib/index.d.ts npm/mock/lib/form.d.ts
	$(NODE_BIN)/tsc $(TSC_FLAGS) --skipLibCheck --module esnext --moduleResolution bundler tools/types-usage.ts

# The tests that run the suite in a child process (conformance, action)
# skip themselves under -race and run in the second pass, without it: the
# race detector triples a child run's time and adds nothing to its verdict
# (conformance/main_test.go, childRuns).
go-test: ## unit and integration tests with the race detector, then the suite's child-process runs without it [9 min]
	go test -race -count=1 $(GO_TEST_FLAGS) ./...
	go test -count=1 $(GO_TEST_FLAGS) ./conformance/ ./action/

# The reference model's proofs: each mutant only it kills is killed, each
# variant where it has latitude is passed. Without -race: 44 driven runs of
# a one-caller model (the mock's concurrency is go-test's).
model-proof: ## the reference model against every mutant only it kills, every valid variant and lost answers; every declared fact broken is declared (class completeness) [4 min, the waiting lane's last]
	go test -count=1 -run 'TestModel(Kills|Passes|Reaches|Names)|TestLostAnswers|TestEveryDeclaredFact' ./conformance/refmodel/

# Fuzz targets as package:Target:BUDGET, BUDGET what fuzz-short gives each:
# a number of executions, not a duration. With a duration, Go's fuzzing
# coordinator (go1.26) can report the end of its own -fuzztime as a failure,
# "context deadline exceeded" with no failing input, when the machine is
# loaded (golang/go#75804: the deadline wakes it before its workers'
# context is cancelled); a count has no deadline. A count also does the
# same work on any machine: at 5 s each under load, FuzzObserve spent its
# whole time starting its workers and never fuzzed. How long each runs in
# fuzz-short (start-up, the seed corpus, then the executions; measured in
# two runs on 2 shared cores at a load average of 17 to 20, less on an
# idle machine):
#   FuzzRequests 3000x 7-9 s, FuzzCheckJSON 10000x 5 s,
#   FuzzMultipartCreate 3000x 6-10 s, FuzzReadStream 10000x 6-7 s,
#   FuzzDecodeSet 30000x 1-2 s, FuzzObserve 3000x 14-17 s,
#   FuzzEventBound 30000x 5-6 s, FuzzMediaTypeAgreesWithTheParser 30000x
#   (its package built for FuzzReadStream): 50-60 s in all, plus building.
# Each package is built once for all its targets (scripts/fuzz.sh). A
# crasher the fuzzer finds is written to the package's
# testdata/fuzz/<Target>/: commit it, it becomes a regression seed.
FUZZ_TARGETS := ./mockserver:FuzzRequests:3000x ./mockserver:FuzzCheckJSON:10000x ./mockserver:FuzzMultipartCreate:3000x \
	./judge:FuzzReadStream:10000x ./fixtures:FuzzDecodeSet:30000x ./recording:FuzzObserve:3000x \
	./bound:FuzzEventBound:30000x ./judge:FuzzMediaTypeAgreesWithTheParser:30000x
FUZZTIME ?= 30s
fuzz: ## run every fuzz target for FUZZTIME each (default 30s; a count such as 100000x has no end-of-run flake): make fuzz FUZZTIME=5m
	bash scripts/fuzz.sh $(foreach t,$(FUZZ_TARGETS),$(word 1,$(subst :, ,$(t))):$(word 2,$(subst :, ,$(t))):$(FUZZTIME))

fuzz-build: ## build the fuzz targets' instrumented test binaries only (into the build cache; .ci/run does it while installing)
	FUZZ_BUILD_ONLY=1 bash scripts/fuzz.sh $(FUZZ_TARGETS)

fuzz-short: ## every fuzz target for its budget of executions, under a minute of fuzzing in all (part of make test) [55 s, its packages built by .ci/run beforehand; 5 min with a cold build]
	bash scripts/fuzz.sh $(FUZZ_TARGETS)

DURATION ?= 2m
soak: ## drive streams, leavers, uploads, evaluations and resets for DURATION on 127.0.0.1, then check goroutines, RSS, no 5xx
	SOAK_DURATION=$(DURATION) go test -count=1 -timeout 0 -run '^TestSoak$$' -v ./mockserver/

soak-short: ## a 10 s soak (part of make test) [13 s]
	$(MAKE) --no-print-directory soak DURATION=10s

selftest: ## run the conformance suite against a freshly started mock (it must pass) [37 s]
	bash scripts/selftest.sh

SEEDS ?= 50
explore-seeds: ## the explore phase against a fresh mock with seeds 1..SEEDS (default 50): every run must pass
	bash scripts/explore-seeds.sh 1 $(SEEDS)

# Seeds 2..4: seed 1 is the mutation runner's, explored by its baseline and
# every valid variant.
explore-short: ## the explore phase with seeds 2 to 4 (part of make test) [90 s]
	bash scripts/explore-seeds.sh 2 4

clauses: ## regenerate conformance/CLAUSES.md from the code
	go run ./cmd/conformance --clauses > conformance/CLAUSES.md

check-clauses: ## fail when conformance/CLAUSES.md is stale [5 s]
	@diff -u conformance/CLAUSES.md <(go run ./cmd/conformance --clauses) || { echo "conformance/CLAUSES.md is stale: run make clauses"; exit 1; }

conformance: ## run the suite: make conformance BASE_URL=... API_KEY=... [API_KEY_2=...]
	@test -n "$(BASE_URL)" -a -n "$(API_KEY)" || { echo "usage: make conformance BASE_URL=http://host:port API_KEY=key [API_KEY_2=key2]"; exit 2; }
	CONFORMANCE_API_KEY='$(API_KEY)' CONFORMANCE_API_KEY_2='$(API_KEY_2)' go run ./cmd/conformance --base-url $(BASE_URL)

bench: ## benchmarks: mock/bare ratios of GET model and POST conversation, heap per open stream
	go test -run '^$$' -bench . -benchmem ./...

bench-proxy: ## the validating proxy's cost: GET by id req/s through it / direct, time to the first chunk of a paced stream (also in make bench)
	go test -run '^$$' -bench 'GetByID' -benchtime 3000x ./proxy/
	go test -run '^$$' -bench 'FirstChunk' -benchtime 50x ./proxy/

LOADTEST_FLAGS ?=
loadtest: build ## mock vs bare net/http (and Prism 5 if tools/prism is installed), the validating proxy vs direct: req/s ratios and CPU per answer, then RSS per open stream; ~4 min
	bin/loadtest $(LOADTEST_FLAGS)

profile: build ## CPU and alloc profiles of the mock under a bounded load, into build/ (see docs/PERFORMANCE.md)
	bin/loadtest --mode profile --duration 10s --profile-dir build $(LOADTEST_FLAGS)
	go tool pprof -top -nodecount=30 bin/mockserver build/cpu-get-model.pprof | tee build/cpu-get-model.txt
	go tool pprof -top -nodecount=30 -sample_index=alloc_space -diff_base build/allocs-get-model-base.pprof bin/mockserver build/allocs-get-model.pprof | tee build/allocs-get-model.txt

profile-proxy: build ## CPU and alloc profiles of the validating proxy in front of the mock under a bounded load, into build/ (see docs/PERFORMANCE.md)
	bin/loadtest --mode profile-proxy --duration 10s --profile-dir build $(LOADTEST_FLAGS)
	go tool pprof -top -nodecount=30 bin/conformance build/cpu-proxy-get-model.pprof | tee build/cpu-proxy-get-model.txt
	go tool pprof -top -nodecount=30 bin/conformance build/cpu-proxy-create-conversation.pprof | tee build/cpu-proxy-create-conversation.txt

mutation: build ## run the suite against every mutant and valid variant; fails if a mutant survives [10.5 min]
	bin/mutation --bin bin

# Swagger UI for GET /docs: copied from the pinned npm package and committed,
# so the mock serves it without a network (mockserver/docs_test.go checks the
# copy against the pin).
DOCS_ASSETS := swagger-ui-bundle.js swagger-ui.css LICENSE NOTICE
docs-assets: $(NODE_STAMP) ## copy Swagger UI (swagger-ui-dist, pinned in tools/package.json) into mockserver/docs
	for f in $(DOCS_ASSETS); do cp tools/node_modules/swagger-ui-dist/$$f mockserver/docs/$$f; done
	node -p 'require("./tools/node_modules/swagger-ui-dist/package.json").version' > mockserver/docs/swagger-ui-dist.version

browser-test: build $(NODE_STAMP) ## drive the console, docs and a cross-origin app in headless Chromium (browser/) [105 s]
	bash browser/run.sh

# The npm packages (npm/): the main one and one per platform, the binary
# cross-compiled with cgo off, -trimpath and stripped, as tarballs in build/npm.
npm: ## the npm packages as tarballs in build/npm/: @contractkit/mock and one per platform (Go and npm; no network); ends with the npm i -D line for an app
	node npm/pack.cjs --platforms all --out build/npm

# This machine's package only, its binary linked from make build's compiled
# packages, installed into an empty folder with no Go on the PATH with the
# line make npm prints; then installed the two ways that leave the binary
# out (the launcher names each cause), and from a registry of the tarballs
# on 127.0.0.1. docs/frontend.md's sizes and typed blocks are held to the built
# packages and tsc, its upload is sent, and its Playwright recipe runs with
# four workers beside two busy loops under nice, then reuses a mock an
# earlier run left dirty.
npm-test: build $(NODE_STAMP) ## install the npm package (this platform) where no Go is as the frontend guide says, the launcher's causes, npx, the frontend guide's sizes, typed blocks and upload, the /admin types against real answers, the frontend guide's Playwright recipe with 4 workers under load [140 s]
	node --test --test-reporter=spec npm/package.test.cjs

build: ## build the binaries into bin/ (contractkit, mockserver, conformance, mutation, loadtest)
	go build -o bin/ ./cmd/...

clean:
	rm -rf bin build reports
