#!/usr/bin/env bash
# `har backup create` against `tar` of the same data folder (issue 29: target ≤ 1.5× tar's time, peak
# RSS < 64 MB): a data folder of REPORTS reports × 3 photos of PHOTO_BYTES (random bytes, a JPEG's
# first and last) queued by bench/outbox-fixture.py, then ROUNDS rounds alternating the two, each
# ending with its file flushed to disk (tar then `sync FILE`; the backup fsyncs and reads its archive
# back to check it, which tar does not). Also times `har backup verify`. Page cache warm for both.
# Ends with a restore of the last backup into a new folder, compared file by file with the original.
#
#   bench/backup.sh [HAR]                       # default .build/release/har
#   REPORTS=1000 PHOTO_BYTES=200000 ROUNDS=3 bench/backup.sh
set -euo pipefail
cd "$(dirname "$0")/.."
har=${1:-.build/release/har}
REPORTS=${REPORTS:-1000} PHOTO_BYTES=${PHOTO_BYTES:-200000} ROUNDS=${ROUNDS:-3}
work=$(mktemp -d /tmp/har-backup-bench.XXXXXX)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
key=bench-key secret=YmVuY2gtc2VjcmV0LW5vdC1yZWFs
platform_port=$(free_port) port=$(free_port)

mkdir -p "$work/platform" "$work/data"
HAR_PLATFORM_PORT=$platform_port HAR_PLATFORM_APPS="$key:$secret" HAR_DATA_DIR="$work/platform" \
    "$har" platform > "$work/platform.log" 2>&1 &
pids+=($!)
# One start of har serve makes the schema; the fixture fills it while no server runs.
HAR_PORT=$port HAR_DATA_DIR="$work/data" HAR_PLATFORM_URL="http://127.0.0.1:$platform_port" HAR_CONSUMER_KEY=$key \
    HAR_CONSUMER_SECRET=$secret HAR_WORKER_ENABLED=false HAR_ACCESS_LOG=false "$har" serve > "$work/serve.log" 2>&1 &
serve=$!
for _ in $(seq 1 300); do curl -fs -o /dev/null "http://127.0.0.1:$port/healthz" && break; sleep 0.1; done
kill -TERM "$serve"; wait "$serve" || true
python3 bench/outbox-fixture.py "$work/data" "http://127.0.0.1:$platform_port" $key $secret \
    "$REPORTS" 3 "$PHOTO_BYTES" > /dev/null
size=$(du -sb "$work/data" | cut -f1)
echo "data folder: $REPORTS reports, $((REPORTS * 3)) photos, $((size / 1048576)) MiB"

timed() {  # label, command…: prints "seconds peak_kib"
    local label=$1; shift
    /usr/bin/time -f "%e %M" -o "$work/time" "$@" > /dev/null 2> "$work/err" || { cat "$work/err" >&2; exit 1; }
    read -r seconds kib < "$work/time"
    echo "$label $seconds $kib"
}
tar cf "$work/warm.tar" -C "$work/data" . && rm "$work/warm.tar"
results=()
for round in $(seq 1 "$ROUNDS"); do
    results+=("$(timed tar bash -c "tar cf '$work/t.tar' -C '$work/data' . && sync '$work/t.tar'")")
    rm -f "$work/t.tar"
    results+=("$(timed backup env HAR_DATA_DIR="$work/data" "$har" backup create --to "$work/b.tar")")
    results+=("$(timed verify "$har" backup verify "$work/b.tar")")
    [ "$round" -lt "$ROUNDS" ] && rm -f "$work/b.tar"
done
printf '%s\n' "${results[@]}"
echo "archive: $(stat -c %s "$work/b.tar") bytes"
median() { printf '%s\n' "${results[@]}" | awk -v l="$1" '$1 == l {print $2}' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
peak() { printf '%s\n' "${results[@]}" | awk -v l="$1" '$1 == l {print $3}' | sort -n | tail -1; }
t=$(median tar) b=$(median backup) v=$(median verify)
echo "median: tar ${t} s, har backup create ${b} s ($(awk -v b="$b" -v t="$t" 'BEGIN {printf "%.2f", b / t}')× tar), verify ${v} s"
echo "peak RSS: har backup create $(( $(peak backup) / 1024 )) MB, verify $(( $(peak verify) / 1024 )) MB, tar $(( $(peak tar) / 1024 )) MB"
"$har" backup restore "$work/b.tar" --data-dir "$work/restored" > /dev/null
if diff -r "$work/data/photos" "$work/restored/photos" > /dev/null; then
    echo "restored: every photo file byte-equal ($(ls "$work/restored/photos" | wc -l) files)"
else
    echo "restored: photo files differ" >&2; exit 1
fi
