#!/usr/bin/env python3
"""A real SMTP server (aiosmtpd) on 127.0.0.1 for the mail test: accepts AUTH PLAIN/LOGIN with
the user and password given on the command line (without TLS, which is fine on loopback), and
writes each received message to OUT_DIR/<n>.eml plus OUT_DIR/<n>.json (envelope, auth user).
Prints the port on the first line.  Usage: smtp_sink.py OUT_DIR USER PASSWORD
"""
import json
import os
import socket
import sys
import time

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

out_dir, user, password = sys.argv[1], sys.argv[2], sys.argv[3]
count = [0]
logins = []  # users that authenticated, in order


class Handler:
    async def handle_DATA(self, server, session, envelope):
        count[0] += 1
        base = os.path.join(out_dir, str(count[0]))
        with open(base + ".eml", "wb") as f:
            f.write(envelope.original_content or envelope.content)
        with open(base + ".json", "w") as f:
            json.dump({"mail_from": envelope.mail_from, "rcpt_tos": envelope.rcpt_tos,
                       "auth_login": logins[-1] if session.authenticated and logins else None}, f)
        return "250 OK"


def authenticator(server, session, envelope, mechanism, auth_data):
    ok = (isinstance(auth_data, LoginPassword) and auth_data.login.decode() == user
          and auth_data.password.decode() == password)
    if ok:
        logins.append(auth_data.login.decode())
    return AuthResult(success=ok)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


port = free_port()
controller = Controller(Handler(), hostname="127.0.0.1", port=port, authenticator=authenticator,
                        auth_require_tls=False)
controller.start()
print(port, flush=True)
try:
    while True:
        time.sleep(3600)
finally:
    controller.stop()
