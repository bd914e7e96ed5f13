#!/usr/bin/env bash
# The upload worker's baseline for bench/run: the same signed requests (create, then each photo as
# multipart with the same text parts) sent by curl from a script, PARALLEL reports at once, with the
# signature computed by `openssl dgst -sha1 -hmac`. Reads the photos the fixture queued in DATA_DIR.
#
#   curl-baseline.sh DATA_DIR PLATFORM_URL KEY SECRET SESSION_ID PARALLEL
set -euo pipefail
data_dir=$1 url=$2 key=$3 secret=$4 session=$5 parallel=$6
export data_dir url key secret session

send_report() {
    local report_id=$1 place=$2 body sig answer id
    body="{\"condition\":\"poor\",\"designation\":\"LB\",\"grade\":\"II\",\"location\":{\"accuracy\":8,\"latitude\":51.5,\"longitude\":-0.12},\"occupancy\":\"vacant\",\"owner_type\":\"private\",\"place_name\":\"$place\",\"priority_category\":\"A\"}"
    sig=$(printf '%s%s' "har/report" "$body" | openssl dgst -sha1 -hmac "$secret" -r | cut -d' ' -f1)
    answer=$(curl -fsS -X POST -H "X-API-Key: $key" -H "X-API-Sig: $sig" -H "X-Authentication: $session" \
        -H "Content-Type: application/json" -H "Idempotency-Key: $(cat /proc/sys/kernel/random/uuid)" \
        --data-binary "$body" "$url/har/report")
    id=$(printf '%s' "$answer" | grep -o '"report_id":"[^"]*"' | cut -d'"' -f4)
    local tmp; tmp=$(mktemp)
    for photo in $(sqlite3 -cmd ".timeout 5000" "$data_dir/har.sqlite" "SELECT local_id FROM photos WHERE report_id = $report_id ORDER BY position"); do
        local b="bench-boundary-$photo"
        {
            for part in "latitude:51.5" "longitude:-0.12" "captured_at:2026-05-01T10:00:00Z"; do
                printf -- '--%s\r\nContent-Disposition: form-data; name="%s"\r\n\r\n%s\r\n' "$b" "${part%%:*}" "${part#*:}"
            done
            printf -- '--%s\r\nContent-Disposition: form-data; name="photo"; filename="photo.jpg"\r\nContent-Type: image/jpeg\r\n\r\n' "$b"
            cat "$data_dir/photos/$photo"
            printf -- '\r\n--%s--\r\n' "$b"
        } > "$tmp"
        sig=$({ printf '%s' "har/report/$id/photo"; cat "$tmp"; } | openssl dgst -sha1 -hmac "$secret" -r | cut -d' ' -f1)
        curl -fsS -o /dev/null -X POST -H "X-API-Key: $key" -H "X-API-Sig: $sig" -H "X-Authentication: $session" \
            -H "Content-Type: multipart/form-data; boundary=$b" -H "Idempotency-Key: $(cat /proc/sys/kernel/random/uuid)" \
            --data-binary "@$tmp" "$url/har/report/$id/photo"
    done
    rm -f "$tmp"
}
export -f send_report

sqlite3 -cmd ".timeout 5000" -separator ' ' "$data_dir/har.sqlite" "SELECT id, 'Baseline chapel ' || id FROM reports ORDER BY id" |
    xargs -P "$parallel" -L 1 bash -c 'send_report "$0" "$1 $2 $3"'
