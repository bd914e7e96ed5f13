#!/usr/bin/env bash
# Instruction counts per request, with valgrind's callgrind, of the routes bench/run times: counts
# do not depend on what else runs on the machine, so they can be compared between builds on a busy box.
#
#   bench/profile.sh [REQUESTS]   # default 200 requests per route
#
# For each route: `har serve` (the release build, access log off, worker off) starts under callgrind
# with instrumentation off; once it answers, it is switched on (callgrind_control -i on), REQUESTS
# GETs are sent one after the other on one keep-alive connection (curl), and the counts are dumped.
# Prints instructions per request (every thread of the process: MHD's, the handler's, SQLite, zlib)
# and keeps each profile in $PROFILE_DIR (default: a temporary folder, removed) for callgrind_annotate.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
export PATH="/opt/swift/usr/bin:$PATH"
REQUESTS=${1:-200}
[ -x .build/release/har ] || swift build -c release --product har >/dev/null
work=$(mktemp -d /tmp/har-profile.XXXXXX)
keep=${PROFILE_DIR:-}
pid=""
cleanup() {
    [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')

# One route under callgrind: NAME DATA_DIR URL [curl options…] → "NAME instructions-per-request".
# NAME ending in -304: the request carries the ETag the same process gave (it changes per process).
profile() {
    local name=$1 data=$2 url=$3
    shift 3
    local options=("$@")
    HAR_PORT=$port HAR_DATA_DIR="$data" HAR_ACCESS_LOG=false HAR_WORKER_ENABLED=false HAR_BENCHMARK_ROUTES=true \
        valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$work/$name.%p.out" \
        "$root/.build/release/har" serve > "$work/$name.log" 2>&1 &
    pid=$!
    for _ in $(seq 1 600); do curl -fs -o /dev/null "http://127.0.0.1:$port/healthz" && break; sleep 0.1; done
    # Warm up (first renders compile and cache), then count only the requests.
    local tag
    tag=$(curl -fs -D - -o /dev/null "${options[@]}" "$url" | awk 'tolower($1) == "etag:" { print $2 }' | tr -d '\r')
    [[ $name == *-304 ]] && options+=(-H "If-None-Match: $tag")
    local arguments=()
    for _ in $(seq 1 "$REQUESTS"); do arguments+=("$url" -o /dev/null); done
    callgrind_control -i on "$pid" > /dev/null 2>&1
    curl -fs "${options[@]}" "${arguments[@]}"
    callgrind_control -i off "$pid" > /dev/null 2>&1
    kill -TERM "$pid"
    wait "$pid" 2>/dev/null || true
    pid=""
    local total
    total=$(cat "$work/$name".*.out | awk '/^(summary|totals):/ { s += $2 } END { printf "%d", s }')
    printf '%s %d\n' "$name" $((total / REQUESTS))
    if [ -n "$keep" ]; then mkdir -p "$keep" && cp "$work/$name".*.out "$keep/"; fi
}

mkdir -p "$work/bench" "$work/list"
profile static "$work/bench" "http://127.0.0.1:$port/static/css/app.css"
profile rows "$work/bench" "http://127.0.0.1:$port/bench/rows"
# The list of bench/run: one start makes the database, then 200 reports are seeded.
HAR_PORT=$port HAR_DATA_DIR="$work/list" HAR_ACCESS_LOG=false HAR_WORKER_ENABLED=false \
    "$root/.build/release/har" serve > "$work/seed.log" 2>&1 &
pid=$!
for _ in $(seq 1 100); do curl -fs -o /dev/null "http://127.0.0.1:$port/healthz" && break; sleep 0.1; done
kill -TERM "$pid"
wait "$pid" 2>/dev/null || true
pid=""
token=$(bench/list-fixture.sh "$work/list" 200)
profile list "$work/list" "http://127.0.0.1:$port/reports" -H "Cookie: har_session=$token"
profile list-gzip "$work/list" "http://127.0.0.1:$port/reports" -H "Cookie: har_session=$token" \
    -H "Accept-Encoding: gzip"
profile list-304 "$work/list" "http://127.0.0.1:$port/reports" -H "Cookie: har_session=$token"
