#!/usr/bin/env bash
# make browser-test: start the mock with short durations on a free loopback
# port, run the browser tests (Node's own runner, headless Debian Chromium
# driven by playwright-core), stop the mock. Screenshots of failures go to
# build/.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/mock.sh
mkdir -p build
chromium=${CHROMIUM:-/usr/bin/chromium}
[ -x "$chromium" ] || { echo "browser-test: $chromium is missing: apt-get install -y chromium" >&2; exit 1; }
[ -d tools/node_modules/playwright-core ] || { echo "browser-test: run make tools first" >&2; exit 1; }
[ -x bin/mockserver ] || go build -o bin/ ./cmd/mockserver

key="browser-$RANDOM-$RANDOM"
trap stop_mock EXIT
# --open-keys as make run gives it: the README's Playwright fixture opens an
# account per worker (readme.test.cjs, parallel.test.cjs).
MOCK_API_KEY="$key" start_mock build/browser-mock.log --train-duration 1s --eval-duration 3s \
	--token-interval 20ms --log-level warn --open-keys 'test-*'

# A conformance report to filter (browser/report.test.cjs), from a real run:
# with a key the mock does not know, the auth checks that need a valid key
# fail below the ones that pass, and the isolation checks skip (no second
# key). The run fails, as it should.
[ -x bin/conformance ] || go build -o bin/ ./cmd/conformance
bin/conformance --base-url "$base" --api-key "unknown-$key" --label-filter "auth || isolation" --explore 0 \
	--timeout 20s --html build/browser-report.html > build/browser-report.log 2>&1 || true

# BROWSER_TESTS runs some of them only (a space-separated list of files).
tests=${BROWSER_TESTS:-browser/console.test.cjs browser/console-detail.test.cjs browser/app.test.cjs \
	browser/live.test.cjs browser/readme.test.cjs browser/parallel.test.cjs browser/report.test.cjs}
# shellcheck disable=SC2086 # the list is split on purpose
MOCK_URL="$base" MOCK_API_KEY="$key" CHROMIUM="$chromium" NODE_PATH="$PWD/tools/node_modules" \
	REPORT_HTML="$PWD/build/browser-report.html" \
	node --test --test-concurrency=1 --test-reporter=spec $tests
