#!/usr/bin/env python3
"""Prints what the mail tests check of one message file, as JSON, parsed by Python's email package."""
import email, email.policy, json, sys

raw = open(sys.argv[1], "rb").read()
message = email.message_from_bytes(raw, policy=email.policy.default)
parts = {}
for part in message.walk():
    if part.get_content_maintype() == "text":
        parts[part.get_content_type()] = part.get_content()
print(json.dumps({
    "header_names": [name for name, _ in message.raw_items()],
    "subject": str(message["Subject"]),
    "from": str(message["From"]),
    "to": str(message["To"]),
    "message_id": str(message["Message-ID"]),
    "date": str(message["Date"]),
    "date_parsed": message["Date"].datetime is not None,
    "auto_submitted": message["Auto-Submitted"],
    "list_unsubscribe": message["List-Unsubscribe"],
    "list_unsubscribe_post": message["List-Unsubscribe-Post"],
    "content_type": message.get_content_type(),
    "content_language": message["Content-Language"],
    "text": parts.get("text/plain"),
    "html": parts.get("text/html"),
    "defects": [type(d).__name__ for d in message.defects]
    + [type(d).__name__ for p in message.walk() for d in p.defects],
    "longest_line": max(len(line) for line in raw.split(b"\r\n")),
    "bare_lf": raw.replace(b"\r\n", b"").count(b"\n"),
}, ensure_ascii=False))
