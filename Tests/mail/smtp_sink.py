#!/usr/bin/env python3
"""An SMTP sink for the mail tests: aiosmtpd on a free loopback port, each message it accepts written
to a folder as N.eml (with N.json: envelope and what the sink answered). Faults on demand:
  --defer N        answer 451 to the first N messages' DATA (nothing kept)
  --drop N         keep the first N messages, then drop the connection instead of answering DATA
  --reject         answer 550 to every RCPT TO
  --delay S        keep the message, then wait S seconds before answering DATA (a sender killed mid-send)
  --tls CERT KEY   offer STARTTLS (and require it before MAIL)
  --auth USER:PASS require AUTH PLAIN/LOGIN with these credentials
Prints "listening on PORT" once ready."""
import argparse, asyncio, json, os, ssl, sys

from aiosmtpd.smtp import SMTP, AuthResult, LoginPassword


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("folder")
    parser.add_argument("--defer", type=int, default=0)
    parser.add_argument("--drop", type=int, default=0)
    parser.add_argument("--reject", action="store_true")
    parser.add_argument("--delay", type=float, default=0)
    parser.add_argument("--tls", nargs=2)
    parser.add_argument("--auth")
    options = parser.parse_args()
    os.makedirs(options.folder, exist_ok=True)
    state = {"data": 0, "kept": 0}

    class Handler:
        async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
            if options.reject:
                return "550 5.1.1 no such user here"
            envelope.rcpt_tos.append(address)
            return "250 OK"

        async def handle_DATA(self, server, session, envelope):
            state["data"] += 1
            if state["data"] <= options.defer:
                return "451 4.3.0 try again later"
            if options.delay:
                # The worst case for the sender: the message is kept (as a server that took it would),
                # the answer comes late; a test kills its sender in between (N.arrived marks the moment).
                state["kept"] += 1
                keep(state["kept"], envelope, session, "250 after %gs" % options.delay)
                open(os.path.join(options.folder, "%d.arrived" % state["data"]), "w").close()
                await asyncio.sleep(options.delay)
                return "250 2.0.0 OK queued as sink-%d" % state["kept"]
            state["kept"] += 1
            number = state["kept"]
            dropped = state["data"] <= options.defer + options.drop
            keep(number, envelope, session, "dropped" if dropped else "250")
            if dropped:
                server.transport.abort()
                return "250 never seen"
            return "250 2.0.0 OK queued as sink-%d" % number

    def keep(number, envelope, session, answer):
        base = os.path.join(options.folder, str(number))
        with open(base + ".tmp", "wb") as out:
            out.write(envelope.original_content or envelope.content)
        meta = {"from": envelope.mail_from, "to": envelope.rcpt_tos, "answer": answer,
                "tls": session.ssl is not None,
                "user": session.auth_data if isinstance(session.auth_data, str) else None}
        with open(base + ".json", "w") as out:
            json.dump(meta, out)
        os.rename(base + ".tmp", base + ".eml")

    def authenticate(server, session, envelope, mechanism, auth_data):
        if isinstance(auth_data, LoginPassword) and options.auth:
            user, password = options.auth.split(":", 1)
            if auth_data.login.decode() == user and auth_data.password.decode() == password:
                return AuthResult(success=True, auth_data=user)
        return AuthResult(success=False, handled=False)

    context = None
    if options.tls:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(options.tls[0], options.tls[1])

    def factory():
        return SMTP(Handler(), tls_context=context, require_starttls=context is not None,
                    authenticator=authenticate if options.auth else None,
                    auth_required=bool(options.auth), auth_require_tls=context is not None,
                    decode_data=False)

    async def serve():
        server = await asyncio.get_running_loop().create_server(factory, "127.0.0.1", 0)
        print("listening on %d" % server.sockets[0].getsockname()[1], flush=True)
        await server.serve_forever()

    asyncio.run(serve())


if __name__ == "__main__":
    sys.exit(main())
