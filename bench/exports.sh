#!/usr/bin/env bash
# The review's exports against everyone else: 100,000 reports seeded into a fresh data folder,
# then /healthz's latency (300 requests one after another, p50 and p99 as curl sees them on loopback) and a
# volunteer's photo upload (1.5 MB JPEG, median of 5) measured idle and again while four coordinators each
# ask for CSV exports of every report in a loop (two run at once on the exports' pool, the others wait).
# Prints a Markdown table for docs/BENCHMARKS.md, with the ratio to idle (target: at most 2x).
# Usage: bench/exports.sh [har binary]   (default: .build/release/har, else .build/debug/har)
set -euo pipefail
cd "$(dirname "$0")/.."
har="${1:-}"
[ -z "$har" ] && { [ -x .build/release/har ] && har=.build/release/har || har=.build/debug/har; }
data="$(mktemp -d /tmp/har-bench-exports.XXXXXX)"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
base="http://127.0.0.1:$port"
coordinators="c1@bench.example,c2@bench.example,c3@bench.example,c4@bench.example"
loaders=()
cleanup() {
    for p in "${loaders[@]}"; do kill "$p" 2>/dev/null || true; done
    [ -n "${pid:-}" ] && kill "$pid" 2>/dev/null
    wait 2>/dev/null || true
    rm -rf "$data" "$data.out"
}
trap cleanup EXIT

HAR_PORT=$port HAR_DATA_DIR="$data" HAR_WORKER_ENABLED=false HAR_ACCESS_LOG=false HAR_COORDINATORS=$coordinators HAR_PLATFORM_VERIFIED=$coordinators \
    HAR_PHOTOS_PER_DAY=1000 HAR_HANDLER_DEADLINE_SECONDS=600 "$har" serve >"$data.out" 2>&1 &
pid=$!
for _ in $(seq 100); do curl -fs "$base/healthz" >/dev/null 2>&1 && break; sleep 0.1; done

# sign_in JAR EMAIL
sign_in() {
    local token
    token=$(curl -s -b "$1" -c "$1" "$base/signin" | grep -o 'name="_csrf" value="[0-9a-f]*"' | head -1 | sed 's/.*value="//;s/"//')
    curl -s -b "$1" -c "$1" -o /dev/null --data-urlencode "_csrf=$token" --data-urlencode "email=$2" \
        --data-urlencode "password=correct horse" "$base/signin"
}
for n in 1 2 3 4; do sign_in "$data/c$n.jar" "c$n@bench.example"; done
sign_in "$data/v.jar" "volunteer@bench.example"

now=$(date +%s)
sqlite3 "$data/har.sqlite" >/dev/null <<SQL
PRAGMA busy_timeout = 10000;
BEGIN;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000)
INSERT INTO reports (user_id, local_id, state, name, designation, condition, grade, latitude, longitude, accuracy,
    creation_time, submitted_at, submit_token, updated_at, review_state)
SELECT (SELECT id FROM users WHERE email = 'volunteer@bench.example'), printf('local-%06d', i), 'queued',
    printf('Mill %d', i), 'LB', 'poor', 'II', 49 + (i % 400) * 0.01, -1 + (i % 300) * 0.01, 8,
    $now - 100000 + i, $now - 100000 + i, printf('tok-%06d', i), $now, 'received' FROM n;
COMMIT;
ANALYZE;
SQL

python3 bench/make-jpeg.py "$data/photo.jpg" 2000 1500
page=$(curl -s -b "$data/v.jar" -c "$data/v.jar" "$base/reports/new")
draft=$(echo "$page" | grep -o 'data-draft="[0-9a-f-]*"' | head -1 | sed 's/.*="//;s/"//')
vtoken=$(echo "$page" | grep -o 'name="_csrf" value="[0-9a-f]*"' | head -1 | sed 's/.*value="//;s/"//')

healthz() {  # prints "p50 p99" in ms
    for _ in $(seq 300); do curl -s -o /dev/null -w '%{time_total}\n' "$base/healthz"; done | sort -n |
        awk '{a[NR]=$1} END {printf "%.2f %.2f", a[int(NR*0.5)]*1000, a[int(NR*0.99)]*1000}'
}
upload() {  # median of 5, ms
    for _ in 1 2 3 4 5; do
        curl -s -o /dev/null -w '%{time_total}\n' -b "$data/v.jar" -H "X-CSRF-Token: $vtoken" \
            -H "Accept: application/json" -F "photo=@$data/photo.jpg;type=image/jpeg" "$base/api/drafts/$draft/photos"
    done | sort -n | awk '{a[NR]=$1} END {printf "%.1f", a[3]*1000}'
}
export_loop() {  # JAR: CSV exports of every report, one after another, until killed
    local token
    token=$(curl -s -b "$1" "$base/review" | grep -o 'name="_csrf" value="[0-9a-f]*"' | head -1 | sed 's/.*value="//;s/"//' || true)
    # A coordinator's grant binds only to an account the platform reports verified (HAR_PLATFORM_VERIFIED).
    [ -n "$token" ] || { echo "exports: $1 is not a coordinator (no review page)" >&2; exit 1; }
    while true; do
        curl -s -o /dev/null -w '%{http_code} %{time_total}\n' -b "$1" --data-urlencode "_csrf=$token" \
            "$base/review/export.csv" >> "$1.exports"
    done
}

read -r idle50 idle99 <<< "$(healthz)"
idle_up=$(upload)
for n in 1 2 3 4; do export_loop "$data/c$n.jar" & loaders+=($!); done
sleep 2
read -r busy50 busy99 <<< "$(healthz)"
busy_up=$(upload)
for p in "${loaders[@]}"; do kill "$p" 2>/dev/null || true; done
wait "${loaders[@]}" 2>/dev/null || true
loaders=()
made=$(cat "$data"/c*.jar.exports | grep -c '^200' || true)
busy=$(cat "$data"/c*.jar.exports | grep -c '^429' || true)
one=$(cat "$data"/c*.jar.exports | awk '$1 == 200 {print $2}' | sort -n | awk '{a[NR]=$1} END {printf "%.2f", a[int((NR+1)/2)]}')

ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f×", b / a}'; }
echo "| measure (100,000 reports; $(basename "$(dirname "$har")") build) | idle | four coordinators exporting | ratio |"
echo "| --- | --- | --- | --- |"
echo "| /healthz p50 (ms) | $idle50 | $busy50 | $(ratio "$idle50" "$busy50") |"
echo "| /healthz p99 (ms) | $idle99 | $busy99 | $(ratio "$idle99" "$busy99") |"
echo "| photo upload, 1.5 MB JPEG, median of 5 (ms) | $idle_up | $busy_up | $(ratio "$idle_up" "$busy_up") |"
echo
echo "Exports meanwhile: $made finished while measured (median $one s each), $busy answered 429; the others were still running."
