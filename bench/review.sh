#!/usr/bin/env bash
# The review dashboard at scale: 100,000 reports from 1,000 volunteers seeded into a fresh data
# folder (sqlite3, while `har serve` runs: WAL), then the time curl sees on loopback for the dashboard's
# first page under each single filter (counts included: every page shows them), median of 5, and for a bulk
# approve of 10,000 reports (confirmed form post), with the server's own time from its access log.
# Prints a Markdown table for docs/BENCHMARKS.md.
# Usage: bench/review.sh [har binary]   (default: .build/release/har, else .build/debug/har)
#        PLANS=1 bench/review.sh        also prints SQLite's query plans of the indexed filters
set -euo pipefail
cd "$(dirname "$0")/.."
har="${1:-}"
[ -z "$har" ] && { [ -x .build/release/har ] && har=.build/release/har || har=.build/debug/har; }
data="$(mktemp -d /tmp/har-bench-review.XXXXXX)"
port=$((20000 + RANDOM % 20000))
lead=lead@bench.example
cleanup() { [ -n "${pid:-}" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null || true; [ -n "${KEEP:-}" ] && echo "kept $data" || rm -rf "$data" "$data.out"; }
trap cleanup EXIT

HAR_PORT=$port HAR_DATA_DIR="$data" HAR_WORKER_ENABLED=false HAR_ACCESS_LOG=true HAR_COORDINATORS=$lead HAR_PLATFORM_VERIFIED=$lead \
    HAR_REVIEW_POLICY=all "$har" serve >"$data.out" 2>&1 &
pid=$!
for _ in $(seq 100); do curl -fs "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
base="http://127.0.0.1:$port"
jar="$data/cookies"
csrf() { curl -s -b "$jar" -c "$jar" "$base$1" | grep -o 'name="_csrf" value="[0-9a-f]*"' | head -1 | sed 's/.*value="//;s/"//'; }
token=$(csrf /signin)
curl -s -b "$jar" -c "$jar" -o /dev/null --data-urlencode "_csrf=$token" --data-urlencode "email=$lead" \
    --data-urlencode "password=correct horse" "$base/signin"

now=$(date +%s)
sqlite3 "$data/har.sqlite" <<SQL
PRAGMA busy_timeout = 10000;
BEGIN;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000)
INSERT INTO users (email, created_at, updated_at) SELECT printf('v%04d@bench.example', i), $now, $now FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000)
INSERT INTO reports (user_id, local_id, state, name, designation, condition, grade, latitude, longitude, accuracy,
    creation_time, submitted_at, submit_token, updated_at, review_state, last_error)
SELECT (SELECT id FROM users WHERE email = printf('v%04d@bench.example', 1 + i % 1000)), printf('local-%06d', i),
    CASE WHEN i % 50 = 0 THEN 'needs_attention' WHEN i % 70 = 0 THEN 'held' WHEN i % 3 = 0 THEN 'stored' ELSE 'queued' END,
    CASE WHEN i % 10 = 0 THEN printf('Bulk chapel %d', i) ELSE printf('Mill %d', i) END, 'LB', 'poor', 'II',
    49 + (i % 400) * 0.01, -1 + (i % 300) * 0.01, 8, $now - 100000 + i, $now - 100000 + i, printf('tok-%06d', i),
    $now, CASE WHEN i % 4 = 0 THEN 'approved' WHEN i % 9 = 0 THEN 'rejected' ELSE 'received' END,
    CASE WHEN i % 50 = 0 THEN 'refused' END FROM n;
INSERT INTO photos (report_id, local_id, position, content_type, size, sha256, latitude, longitude, created_at)
SELECT id, 'photo-' || local_id, 0, 'image/jpeg', 1000, 'x', latitude, longitude, $now FROM reports;
UPDATE reports SET review_state = 'received' WHERE name LIKE 'Bulk %';
COMMIT;
ANALYZE;
SQL

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ms() { awk '{printf "%.1f", $1 * 1000}'; }
day=$(date -u -d "@$((now - 50000))" +%F)
echo "| dashboard first page (50 rows) and counts, 100,000 reports | median of 5 (curl, loopback) | server time (access log): median / fastest |"
echo "| --- | --- | --- |"
for query in "" "review=received" "delivery=needs_attention" "origin=volunteer" "reporter=v0042" \
    "from=$day&to=$day" "q=chapel+99" "failure=1" "bounds=49.5,-0.5,50,0" "sort=name" "sort=oldest"; do
    t=$(for _ in 1 2 3 4 5; do
        curl -s -b "$jar" -o /dev/null -w '%{time_total}\n' "$base/review?$query"
    done | median | ms)
    # The server's own time for the same 5 requests: the access log's last 5 lines for /review.
    times=$(grep ' GET /review' "$data.out" | tail -5 | grep -o '[0-9.]*ms' | tr -d 'ms')
    echo "| \`/review?$query\` | $t ms | $(echo "$times" | median) ms / $(echo "$times" | sort -n | head -1) ms |"
done
if [ -n "${PLANS:-}" ]; then
    # The query plans of the four filters that read the table before migration 11 (the page's query, as
    # SQLiteReviewStore.search writes it, reduced to its WHERE and ORDER BY).
    reviewable="r.submitted_at IS NOT NULL AND r.state NOT IN ('draft', 'cancelled', 'deleted') AND r.discarded_at IS NULL"
    for clause in "r.user_id IN (SELECT id FROM users WHERE lower(email) LIKE '%v0042%' ESCAPE '\\')" \
        "(r.id IN (SELECT rowid FROM reports_text WHERE reports_text MATCH '\"chapel 99\"') OR r.local_id = 'chapel 99')" \
        "(r.state = 'needs_attention' OR r.last_error IS NOT NULL)" \
        "r.id IN (SELECT id FROM reports_position WHERE north >= 49.5 AND south <= 50 AND east >= -0.5 AND west <= 0) AND r.latitude BETWEEN 49.5 AND 50 AND r.longitude BETWEEN -0.5 AND 0"; do
        echo
        echo "EXPLAIN QUERY PLAN SELECT … WHERE … AND $clause ORDER BY r.submitted_at DESC, r.id DESC LIMIT 50"
        sqlite3 "$data/har.sqlite" "EXPLAIN QUERY PLAN SELECT r.id FROM reports r JOIN users u ON u.id = r.user_id
            WHERE $reviewable AND $clause ORDER BY r.submitted_at DESC, r.id DESC LIMIT 50"
    done
    echo
fi
token=$(csrf /review)
matching=$(curl -s -b "$jar" "$base/review?q=bulk+chapel" | grep -o '[0-9]* reports match' | head -1)
start=$(date +%s.%N)
curl -s -b "$jar" -o "$data/bulk.html" --data-urlencode "_csrf=$token" --data-urlencode "q=bulk chapel" \
    --data-urlencode "action=approve" --data-urlencode "scope=all" --data-urlencode "confirm=10000" "$base/review/bulk"
end=$(date +%s.%N)
summary=$(grep -o 'Approve: [0-9]* done, [0-9]* skipped' "$data/bulk.html" | head -1)
echo "| bulk approve, all matching \`q=bulk chapel\` ($matching): $summary | $(echo "$end - $start" | bc) s |"
