# The index of what a developer can do. `make help` lists the targets.
SHELL := /bin/bash
ADDR ?= 127.0.0.1:8080
BASE_URL ?=
API_KEY ?=
API_KEY_2 ?=
NODE_BIN := tools/node_modules/.bin
GO_TEST_FLAGS ?=

.PHONY: model-proof explore-seeds explore-short fuzz fuzz-short soak soak-short help tools docs-assets browser-test run test vet check-lines lint-spec types go-test selftest clauses check-clauses conformance bench bench-proxy loadtest profile mutation build clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-14s %s\n", $$1, $$2}'

run: ## start the mock server on ADDR (default 127.0.0.1:8080)
	go run ./cmd/mockserver --addr $(ADDR)

test: vet lint-spec types go-test model-proof fuzz-short soak-short selftest explore-short check-clauses mutation browser-test ## everything CI runs

vet: ## gofmt, go vet and check-lines
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

tools: $(NODE_STAMP) ## install the pinned Node tools (Spectral, openapi-typescript, TypeScript)

# Redocly (spec/redocly.yaml): recommended-strict, every example validated
# against its schema. Any problem it prints, error or warning, fails the
# target; its Node.js deprecation box is left out of the output.
REDOCLY := REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true $(NODE_BIN)/redocly
lint-spec: $(NODE_STAMP) ## lint the contract with Spectral (spectral:oas) and Redocly (recommended-strict, every example validated)
	$(NODE_BIN)/spectral lint spec/openapi.yaml --ruleset spec/.spectral.yaml --fail-severity error
	@out=$$($(REDOCLY) lint spec/openapi.yaml --config spec/redocly.yaml --lint-config error --format stylish 2>&1); rc=$$?; \
	grep -v '[╔║╚]' <<<"$$out"; \
	if [ $$rc -ne 0 ] || grep -qE '^ +[0-9]+:[0-9]+ +(error|warning) ' <<<"$$out"; then echo "redocly lint: the contract has problems (see above)"; exit 1; fi

# Fields with a default stay optional to send (openapi-typescript would
# make them required): the README gives frontend teams this same command.
TYPES_ARGS := spec/openapi.yaml --default-non-nullable false
types: $(NODE_STAMP) ## generate TypeScript types with openapi-typescript and compile a client against them
	@grep -qF 'openapi-typescript $(TYPES_ARGS) -o' README.md || { echo "types: README.md does not give the command make types runs (openapi-typescript $(TYPES_ARGS) -o ...)"; exit 1; }
	mkdir -p build
	$(NODE_BIN)/openapi-typescript $(TYPES_ARGS) -o build/api.d.ts
	$(NODE_BIN)/tsc --noEmit --strict --skipLibCheck --module esnext --moduleResolution bundler tools/types-usage.ts

go-test: ## unit and integration tests with the race detector
	go test -race -count=1 $(GO_TEST_FLAGS) ./...

# The reference model's proofs: each mutant only it kills is killed, each
# variant where it has latitude is passed. Without -race: 44 driven runs of
# a one-caller model (the mock's concurrency is go-test's).
model-proof: ## the reference model against every mutant only it kills, every valid variant and lost answers (~30 s)
	go test -count=1 -run 'TestModel(Kills|Passes|Reaches|Names)|TestLostAnswers' ./conformance/refmodel/

# Fuzz targets as package:Target. A crasher the fuzzer finds is written to
# the package's testdata/fuzz/<Target>/: commit it, it becomes a regression seed.
FUZZ_TARGETS := ./mockserver:FuzzRequests ./mockserver:FuzzCheckJSON ./mockserver:FuzzMultipartCreate ./judge:FuzzReadStream ./fixtures:FuzzDecodeSet ./recording:FuzzObserve ./bound:FuzzEventBound
FUZZTIME ?= 30s
fuzz: ## run every fuzz target for FUZZTIME each (default 30s): make fuzz FUZZTIME=5m
	@set -e; for t in $(FUZZ_TARGETS); do \
		echo "fuzz $${t#*:} ($${t%%:*}) for $(FUZZTIME)"; \
		go test -run '^$$' -fuzz "^$${t#*:}$$" -fuzztime $(FUZZTIME) $${t%%:*}; \
	done

fuzz-short: ## every fuzz target for 5s (part of make test)
	$(MAKE) --no-print-directory fuzz FUZZTIME=5s

DURATION ?= 2m
soak: ## drive streams, leavers, uploads, evaluations and resets for DURATION on 127.0.0.1, then check goroutines, RSS, no 5xx
	SOAK_DURATION=$(DURATION) go test -count=1 -timeout 0 -run '^TestSoak$$' -v ./mockserver/

soak-short: ## a 10 s soak (part of make test)
	$(MAKE) --no-print-directory soak DURATION=10s

selftest: ## run the conformance suite against a freshly started mock (it must pass)
	bash scripts/selftest.sh

SEEDS ?= 50
explore-seeds: ## the explore phase against a fresh mock with seeds 1..SEEDS (default 50): every run must pass
	bash scripts/explore-seeds.sh 1 $(SEEDS)

# Seeds 2..4: seed 1 is the mutation runner's, explored by its baseline and
# every valid variant.
explore-short: ## the explore phase with seeds 2 to 4 (part of make test)
	bash scripts/explore-seeds.sh 2 4

clauses: ## regenerate conformance/CLAUSES.md from the code
	go run ./cmd/conformance --clauses > conformance/CLAUSES.md

check-clauses: ## fail when conformance/CLAUSES.md is stale
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
loadtest: build ## mock vs bare net/http (and Prism 5 if tools/prism is installed) req/s ratios, then RSS per open stream; ~2.5 min
	bin/loadtest $(LOADTEST_FLAGS)

profile: build ## CPU and alloc profiles of the mock under a bounded load, into build/ (see docs/PERFORMANCE.md)
	bin/loadtest --mode profile --duration 10s --profile-dir build $(LOADTEST_FLAGS)
	go tool pprof -top -nodecount=30 bin/mockserver build/cpu-get-model.pprof | tee build/cpu-get-model.txt
	go tool pprof -top -nodecount=30 -sample_index=alloc_space -diff_base build/allocs-get-model-base.pprof bin/mockserver build/allocs-get-model.pprof | tee build/allocs-get-model.txt

mutation: build ## run the suite against every mutant and valid variant; fails if a mutant survives
	bin/mutation --bin bin

# Swagger UI for GET /docs: copied from the pinned npm package and committed,
# so the mock serves it without a network (mockserver/docs_test.go checks the
# copy against the pin).
DOCS_ASSETS := swagger-ui-bundle.js swagger-ui.css LICENSE NOTICE
docs-assets: $(NODE_STAMP) ## copy Swagger UI (swagger-ui-dist, pinned in tools/package.json) into mockserver/docs
	for f in $(DOCS_ASSETS); do cp tools/node_modules/swagger-ui-dist/$$f mockserver/docs/$$f; done
	node -p 'require("./tools/node_modules/swagger-ui-dist/package.json").version' > mockserver/docs/swagger-ui-dist.version

browser-test: build $(NODE_STAMP) ## drive the console, docs and a cross-origin app in headless Chromium (browser/)
	bash browser/run.sh

build: ## build both binaries into bin/
	go build -o bin/ ./cmd/...

clean:
	rm -rf bin build reports
