#!/usr/bin/env bash
# Seeds a data folder's har.sqlite (made by one start of `har serve`) with a signed-in user, a web
# session and 200 reports of 3 photo rows each in a mix of states, as the report list reads them.
# Prints the session cookie's token. Usage: bench/list-fixture.sh DATA_DIR [REPORTS]
set -euo pipefail
db="$1/har.sqlite"
count=${2:-200}
token=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
# The table keeps SHA-256 of the token's hex text, as SessionStore.hash does.
hash=$(printf '%s' "$token" | sha256sum | cut -d' ' -f1)
csrf=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
now=$(date +%s)
sqlite3 -cmd ".timeout 5000" "$db" <<SQL >/dev/null
BEGIN;
INSERT INTO users (email, account_id, fullname, platform_session_id, platform_session_expires_at, created_at, updated_at)
VALUES ('bench@example.org', 'acct-bench', 'Bench Surveyor', 'bench-platform-session', $now + 86400, $now, $now);
INSERT INTO web_sessions (token_hash, user_id, csrf_token, created_at, expires_at, last_seen_at)
VALUES (X'$hash', (SELECT id FROM users WHERE email = 'bench@example.org'), '$csrf', $now, $now + 86400, $now);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $count)
INSERT INTO reports (user_id, local_id, platform_report_id, state, name, formatted_address, creation_time,
                     last_error, updated_at)
SELECT (SELECT id FROM users WHERE email = 'bench@example.org'),
       lower(hex(randomblob(4))) || '-' || lower(hex(randomblob(2))) || '-4' || substr(lower(hex(randomblob(2))), 2)
           || '-a' || substr(lower(hex(randomblob(2))), 2) || '-' || lower(hex(randomblob(6))),
       CASE WHEN i % 10 < 8 THEN 'platform-' || i END,
       CASE WHEN i % 10 < 8 THEN 'stored' WHEN i % 10 = 8 THEN 'queued' ELSE 'needs_attention' END,
       'Chapel of St Ninian & <Friends> no. ' || i, i || ' Church Lane, Whithorn',
       $now - i * 86400,
       CASE WHEN i % 10 = 9 THEN 'The platform refused the photo: too large' END, $now
FROM n;
INSERT INTO photos (report_id, local_id, position, content_type, size, sha256, state, created_at)
SELECT r.id, r.local_id || '-' || p.k, p.k, 'image/jpeg', 1048576, '00', CASE WHEN r.state = 'stored' THEN 'stored' ELSE 'pending' END, $now
FROM reports r, (SELECT 1 AS k UNION ALL SELECT 2 UNION ALL SELECT 3) p;
COMMIT;
SQL
echo "$token"
