#!/usr/bin/env bash
# Self-test of the conformance suite: start the mock with short durations on a
# loopback port, run the whole suite against it with two accounts, stop the
# mock. The suite must pass. The second account is one the mock opens on
# demand (--open-keys), so an open account passes the suite too, and keys
# outside the pattern keep their 401 (the suite's unknown keys).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/mock.sh
mkdir -p bin reports
go build -o bin/ ./cmd/mockserver ./cmd/conformance

key1="selftest-$RANDOM-$RANDOM-a"
key2="selftest-open-$RANDOM-$RANDOM-b"
trap stop_mock EXIT
MOCK_API_KEY="$key1" MOCK_OPEN_KEYS='selftest-open-*' start_mock reports/selftest-mock.log --train-duration 1s \
	--eval-duration 3s --token-interval 1ms --log-level warn

CONFORMANCE_API_KEY="$key1" CONFORMANCE_API_KEY_2="$key2" bin/conformance --base-url "$base" \
	--timeout 30s --junit reports/selftest-junit.xml --json reports/selftest.json --html reports/selftest.html "$@"

# The rate-limit checks are off by default (they need a limited server): run
# them, strict, against a second mock that limits each key to 20 requests/s.
stop_mock
MOCK_API_KEY="$key1" start_mock reports/selftest-mock-ratelimit.log --rate-limit 20 --train-duration 1s \
	--eval-duration 3s --log-level warn
CONFORMANCE_API_KEY="$key1" bin/conformance --base-url "$base" --label-filter rate-limit --strict --timeout 30s
