-- Reports for bench/sites' register view: one site in ten has two approved reports (an older and a
-- newer, months apart, of conditions that vary with the site's id, so some sites worsened), one in
-- a hundred of those a third not yet approved. Plain SQL that SQLite and PostgreSQL both run; NOW
-- (Unix seconds) is put in by bench/sites.
BEGIN;
INSERT INTO users (email, created_at, updated_at) VALUES ('bench-sites@example.org', NOW, NOW);
INSERT INTO reports (user_id, local_id, state, name, designation, grade, condition, priority_category,
                     latitude, longitude, creation_time, submitted_at, updated_at, review_state, site_id)
SELECT (SELECT id FROM users WHERE email = 'bench-sites@example.org'),
       'bench-site-' || s.id || '-' || k.k, 'stored', s.name, s.designation, s.grade,
       CASE (s.id / 10 * (k.k + 1)) % 4 WHEN 0 THEN 'bad' WHEN 1 THEN 'poor' WHEN 2 THEN 'fair' ELSE 'good' END,
       CASE (s.id / 10 + k.k) % 6 WHEN 0 THEN 'A' WHEN 1 THEN 'B' WHEN 2 THEN 'C' WHEN 3 THEN 'D'
           WHEN 4 THEN 'E' ELSE 'F' END,
       s.lat, s.lon,
       NOW - ((s.id / 10) % 1000 + (3 - k.k) * 400) * 86400,
       NOW - ((s.id / 10) % 1000 + (3 - k.k) * 400) * 86400,
       NOW,
       CASE WHEN k.k = 3 THEN 'received' ELSE 'approved' END, s.id
FROM sites s, (SELECT 1 AS k UNION ALL SELECT 2 UNION ALL SELECT 3) k
WHERE s.id % 10 = 0 AND (k.k < 3 OR s.id % 1000 = 0);
COMMIT;
