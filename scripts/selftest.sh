#!/usr/bin/env bash
# Self-test of the conformance suite: start the mock with short durations on a
# free loopback port, run the whole suite against it with two accounts, stop
# the mock. The suite must pass.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p bin reports
go build -o bin/ ./cmd/mockserver ./cmd/conformance

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
base="http://127.0.0.1:$port"
key1="selftest-$RANDOM-$RANDOM-a"
key2="selftest-$RANDOM-$RANDOM-b"
MOCK_API_KEY="$key1,$key2" bin/mockserver --addr "127.0.0.1:$port" --train-duration 1s --eval-duration 3s \
	--token-interval 1ms --log-level warn > reports/selftest-mock.log 2>&1 &
mock=$!
trap 'kill $mock 2>/dev/null || true; wait $mock 2>/dev/null || true' EXIT

for _ in $(seq 1 100); do
	curl -fsS "$base/healthz" >/dev/null 2>&1 && break
	sleep 0.1
done

CONFORMANCE_API_KEY="$key1" CONFORMANCE_API_KEY_2="$key2" bin/conformance --base-url "$base" \
	--timeout 30s --junit reports/selftest-junit.xml --json reports/selftest.json --html reports/selftest.html "$@"

# The rate-limit checks are off by default (they need a limited server): run
# them, strict, against a second mock that limits each key to 20 requests/s.
kill $mock 2>/dev/null || true
wait $mock 2>/dev/null || true
MOCK_API_KEY="$key1" bin/mockserver --addr "127.0.0.1:$port" --rate-limit 20 --train-duration 1s --eval-duration 3s \
	--log-level warn > reports/selftest-mock-ratelimit.log 2>&1 &
mock=$!
for _ in $(seq 1 100); do
	curl -fsS "$base/healthz" >/dev/null 2>&1 && break
	sleep 0.1
done
CONFORMANCE_API_KEY="$key1" bin/conformance --base-url "$base" --label-filter rate-limit --strict --timeout 30s
