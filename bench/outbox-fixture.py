#!/usr/bin/env python3
"""Fills a data folder's outbox for bench/run: signs in on the local platform (a real signed call),
records the user's platform session, and queues REPORTS reports of PHOTOS photos of PHOTO_BYTES random
bytes each (a JPEG's first and last bytes), as submission will. The schema must exist (har serve ran
once on the folder). Prints the (first) user's platform session id on stdout, for the curl baseline.
With USERS (default 1), the reports are shared out among that many users, each signed in on the
platform, in turns (a busy day's shape: many volunteers, a few reports each).

usage: outbox-fixture.py DATA_DIR PLATFORM_URL KEY SECRET REPORTS PHOTOS PHOTO_BYTES [USERS]
"""
import hashlib, hmac, json, os, sqlite3, sys, time, urllib.request, uuid

data_dir, url, key, secret = sys.argv[1:5]
reports, photos, photo_bytes = (int(v) for v in sys.argv[5:8])
users = int(sys.argv[8]) if len(sys.argv) > 8 else 1

os.makedirs(data_dir + "/photos", exist_ok=True)
db = sqlite3.connect(data_dir + "/har.sqlite")
now = time.time()
user_ids, sessions = [], []
for number in range(users):
    email = "bench@example.org" if number == 0 else "bench%d@example.org" % number
    body = json.dumps({"email_address": email, "password": "bench password 1"}).encode()
    sig = hmac.new(secret.encode(), b"account/session" + body, hashlib.sha1).hexdigest()
    request = urllib.request.Request(url + "/account/session", data=body, method="POST", headers={
        "X-API-Key": key, "X-API-Sig": sig, "Content-Type": "application/json"})
    session = json.load(urllib.request.urlopen(request))
    db.execute("INSERT OR IGNORE INTO users (email, created_at, updated_at) VALUES (?, ?, ?)", (email, now, now))
    db.execute("UPDATE users SET platform_session_id = ?, platform_session_expires_at = ? WHERE email = ?",
               (session["session_id"], now + 86400, email))
    user_ids.append(db.execute("SELECT id FROM users WHERE email = ?", (email,)).fetchone()[0])
    sessions.append(session["session_id"])
for index in range(reports):
    user_id = user_ids[index % users]
    local_id = str(uuid.uuid4())
    cursor = db.execute(
        """INSERT INTO reports (user_id, local_id, state, name, designation, condition, occupancy, priority_category,
           owner_type, grade, latitude, longitude, accuracy, creation_time, submitted_at, updated_at)
           VALUES (?, ?, 'queued', ?, 'LB', 'poor', 'vacant', 'A', 'private', 'II', 51.5, -0.12, 8, ?, ?, ?)""",
        (user_id, local_id, "Bench chapel %d" % index, now, now, now))
    for position in range(photos):
        photo_id = str(uuid.uuid4())
        content = b"\xff\xd8\xff\xe0" + os.urandom(photo_bytes - 6) + b"\xff\xd9"
        with open(data_dir + "/photos/" + photo_id, "wb") as f:
            f.write(content)
        db.execute(
            """INSERT INTO photos (report_id, local_id, position, content_type, size, sha256, latitude, longitude,
               captured_at, created_at) VALUES (?, ?, ?, 'image/jpeg', ?, ?, 51.5, -0.12, '2026-05-01T10:00:00Z', ?)""",
            (cursor.lastrowid, photo_id, position, len(content), hashlib.sha256(content).hexdigest(), now))
db.commit()
print(sessions[0])
