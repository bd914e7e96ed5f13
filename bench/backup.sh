#!/usr/bin/env bash
# `har backup create` against `tar` of the same data folder (target ≤ 1.5× tar's time, peak
# RSS < 64 MB): a data folder of REPORTS reports × 3 photos of PHOTO_BYTES (random bytes, a JPEG's
# first and last) queued by bench/outbox-fixture.py, then ROUNDS rounds alternating the two, each
# ending with its file flushed to disk (tar then `sync FILE`; the backup fsyncs and reads its archive
# back to check it, which tar does not). Also times `har backup verify`. Page cache warm for both.
# Ends with a restore of the last backup into a new folder, compared file by file with the original;
# then (UPLOADS=1, the default) a backup taken while har serve runs on the folder and a volunteer
# uploads photos through the web endpoints, restored and compared: every restored photo file
# byte-equal to the data folder's, as many photo rows as the manifest counted.
#
#   bench/backup.sh [HAR]                       # default .build/release/har
#   REPORTS=1000 PHOTO_BYTES=200000 ROUNDS=3 UPLOADS=1 bench/backup.sh
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

# The round trip taken while uploads run (the backup's acceptance check): har serve on the same data folder,
# one volunteer uploading photos through the web endpoints without pause (20 to a draft, then the
# draft filed and a new one opened), and `har backup create` meanwhile. The restore must hold every
# photo file the backup's snapshot names, each byte-equal to the data folder's (a photo file never
# changes once written), and as many photo rows as the manifest counted.
[ "${UPLOADS:-1}" = 1 ] || exit 0
HAR_PORT=$port HAR_DATA_DIR="$work/data" HAR_PLATFORM_URL="http://127.0.0.1:$platform_port" HAR_CONSUMER_KEY=$key \
    HAR_CONSUMER_SECRET=$secret HAR_WORKER_ENABLED=false HAR_ACCESS_LOG=false HAR_UPLOAD_MIN_FREE_BYTES=0 \
    "$har" serve > "$work/serve.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 300); do curl -fs -o /dev/null "http://127.0.0.1:$port/healthz" && break; sleep 0.1; done
base="http://127.0.0.1:$port" jar="$work/jar"
csrf_of() { grep -o 'name="_csrf" value="[0-9a-f]*"' "$1" | head -1 | sed 's/.*value="//; s/"$//'; }
curl -s -c "$jar" -b "$jar" -o "$work/page.html" "$base/signin"
signed=$(curl -s -c "$jar" -b "$jar" -o /dev/null -w '%{http_code}' --data-urlencode "email=bench.backup@example.org" \
    --data-urlencode "password=correct horse battery" --data-urlencode "_csrf=$(csrf_of "$work/page.html")" "$base/signin")
[ "$signed" = 303 ] || { echo "sign-in failed: $signed" >&2; exit 1; }
# A real JPEG (the server decodes every photo), written by libvips (scripts/setup installs libvips42,
# which har uses too) through ctypes: 480×360 of noise, about 65 KB.
python3 -c "
import ctypes, sys
vips = ctypes.CDLL('libvips.so.42')
image = ctypes.c_void_p()
assert vips.vips_init(b'bench') == 0 and vips.vips_gaussnoise(ctypes.byref(image), 480, 360, None) == 0
assert vips.vips_image_write_to_file(image, sys.argv[1].encode(), None) == 0
" "$work/base.jpg"
# 400 photos, each the same JPEG with a comment segment of its own after SOI: no two are the same bytes
# (the server refuses a second copy of a photo in one draft).
python3 -c "
import os, sys
base = open(sys.argv[1], 'rb').read()
for n in range(400):
    text = ('bench photo %d ' % n).encode() + os.urandom(8).hex().encode()
    segment = bytes([0xFF, 0xFE, (len(text) + 2) >> 8, (len(text) + 2) & 0xFF]) + text
    open('%s/upload-%d.jpg' % (sys.argv[2], n), 'wb').write(base[:2] + segment + base[2:])
" "$work/base.jpg" "$work"
uploader() {  # uploads until $work/stop exists; counts the 201s in $work/uploaded
    local draft csrf token status n=0
    : > "$work/uploaded"
    while [ ! -e "$work/stop" ]; do
        curl -s -c "$jar" -b "$jar" -o "$work/new.html" "$base/reports/new"
        draft=$(grep -o 'data-draft="[0-9a-f-]*"' "$work/new.html" | head -1 | sed 's/.*="//; s/"$//')
        csrf=$(csrf_of "$work/new.html")
        for _ in $(seq 1 20); do
            [ -e "$work/stop" ] && return
            status=$(curl -s -b "$jar" -o /dev/null -w '%{http_code}' -H "X-CSRF-Token: $csrf" \
                -H "Accept: application/json" -F "photo=@$work/upload-$((n % 400)).jpg;type=image/jpeg" -F latitude=51.5 \
                -F longitude=-0.12 -F accuracy=8 "$base/api/drafts/$draft/photos")
            [ "$status" = 201 ] && echo >> "$work/uploaded"
            n=$((n + 1))
        done
        curl -s -b "$jar" -o "$work/submit.html" "$base/reports/new/submit"
        token=$(grep -o 'name="submit_token" value="[0-9a-f]*"' "$work/submit.html" | head -1 | sed 's/.*value="//; s/"$//')
        curl -s -b "$jar" -o /dev/null --data-urlencode "_csrf=$csrf" --data-urlencode "submit_token=$token" \
            --data-urlencode "draft=$draft" --data-urlencode "name=Bench chapel $draft" --data-urlencode designation=LB \
            --data-urlencode condition=poor --data-urlencode occupancy=vacant --data-urlencode priority_category=A \
            --data-urlencode owner_type=private --data-urlencode grade=II "$base/reports/new/submit"
    done
}
uploader &
uploader_pid=$!
pids+=($uploader_pid)
for _ in $(seq 1 100); do [ -s "$work/uploaded" ] && break; sleep 0.1; done
before=$(wc -l < "$work/uploaded")
rm -f "$work/b.tar"
env HAR_DATA_DIR="$work/data" "$har" backup create --to "$work/b.tar" > /dev/null
during=$(( $(wc -l < "$work/uploaded") - before ))
touch "$work/stop"; wait "$uploader_pid" || true
"$har" backup restore "$work/b.tar" --data-dir "$work/restored-live" > /dev/null
differ=0
for file in "$work/restored-live/photos/"*; do
    cmp -s "$file" "$work/data/photos/$(basename "$file")" || differ=$((differ + 1))
done
restored=$(ls "$work/restored-live/photos" | wc -l) rows=$(sqlite3 "$work/restored-live/har.sqlite" 'SELECT count(*) FROM photos')
manifest_rows=$(tar xOf "$work/b.tar" MANIFEST.json | python3 -c 'import json,sys; print(json.load(sys.stdin)["row_counts"]["photos"])')
echo "while uploads ran: $during photos uploaded during the backup ($(wc -l < "$work/uploaded") in all); restored $restored photo files, $differ differing; $rows photo rows, the manifest says $manifest_rows"
[ "$differ" = 0 ] && [ "$rows" = "$manifest_rows" ] || { echo "the round trip under uploads failed" >&2; exit 1; }
