#!/usr/bin/env bash
# make browser-test: start the mock with short durations on a free loopback
# port, run the browser tests (Node's own runner, headless Debian Chromium
# driven by playwright-core), stop the mock. Screenshots of failures go to
# build/.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p build
chromium=${CHROMIUM:-/usr/bin/chromium}
[ -x "$chromium" ] || { echo "browser-test: $chromium is missing: apt-get install -y chromium" >&2; exit 1; }
[ -d tools/node_modules/playwright-core ] || { echo "browser-test: run make tools first" >&2; exit 1; }
[ -x bin/mockserver ] || go build -o bin/ ./cmd/mockserver

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
base="http://127.0.0.1:$port"
key="browser-$RANDOM-$RANDOM"
MOCK_API_KEY="$key" bin/mockserver --addr "127.0.0.1:$port" --train-duration 1s --eval-duration 3s \
	--token-interval 20ms --log-level warn > build/browser-mock.log 2>&1 &
mock=$!
trap 'kill $mock 2>/dev/null || true; wait $mock 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
	curl -fsS "$base/healthz" >/dev/null 2>&1 && break
	sleep 0.1
done
curl -fsS "$base/healthz" >/dev/null || { echo "browser-test: the mock did not start" >&2; cat build/browser-mock.log >&2; exit 1; }

MOCK_URL="$base" MOCK_API_KEY="$key" CHROMIUM="$chromium" NODE_PATH="$PWD/tools/node_modules" \
	node --test --test-concurrency=1 --test-reporter=spec browser/console.test.cjs browser/app.test.cjs
