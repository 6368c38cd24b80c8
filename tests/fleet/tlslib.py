"""Certificates and a TLS Redis for the fleet's HTTPS and ``rediss://`` tests.

Everything is made at test time with the ``openssl`` CLI into a temp dir:
a CA, a server certificate for ``127.0.0.1`` (subjectAltName
``IP:127.0.0.1,DNS:localhost``), one for another name only
(``DNS:wrong.example``), an expired one for ``127.0.0.1``, all signed by the
CA, and a PEM file that holds no
certificate (a private key only). ``TLSRedisServer`` is a private
redis-server (Debian's 7.0) with a plain port (for ``MONITOR`` and setup)
and a TLS port, plus an ACL user for ``rediss://USER:PASSWORD@...``.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import fleetlib

ACL_USER = "fleet"
ACL_PASSWORD = "s3cret"


@dataclass(frozen=True)
class Certs:
    dir: Path
    ca: Path  # the CA certificate (PEM): what --ca-file names
    server_cert: Path  # IP:127.0.0.1, DNS:localhost
    server_key: Path
    wrong_cert: Path  # DNS:wrong.example only
    wrong_key: Path
    expired_cert: Path  # IP:127.0.0.1, DNS:localhost, notAfter a day ago
    expired_key: Path
    no_cert: Path  # a PEM file with a private key and no certificate


def _openssl(*args: str, cwd: Path) -> None:
    exe = shutil.which("openssl")
    if not exe:
        raise FileNotFoundError("the openssl CLI is not installed (Debian's openssl)")
    r = subprocess.run([exe, *args], cwd=cwd, capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        raise RuntimeError(f"openssl {' '.join(args)} failed: {r.stderr[-1500:]}")


def _server_cert(d: Path, name: str, subject_cn: str, san: str, days: int = 2) -> tuple[Path, Path]:
    key, csr, cert, ext = d / f"{name}.key", d / f"{name}.csr", d / f"{name}.pem", d / f"{name}.ext"
    ext.write_text(f"subjectAltName={san}\nbasicConstraints=critical,CA:FALSE\n"
                   "keyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n")
    _openssl("req", "-new", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(csr),
             "-subj", f"/CN={subject_cn}", cwd=d)
    _openssl("x509", "-req", "-in", str(csr), "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
             "-days", str(days), "-sha256", "-extfile", str(ext), "-out", str(cert), cwd=d)
    return cert, key


def make_certs(d: Path) -> Certs:
    """A CA and two server certificates it signed, in ``d``."""
    d.mkdir(parents=True, exist_ok=True)
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem",
             "-days", "2", "-sha256", "-subj", "/CN=fleet test CA",
             "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
             cwd=d)
    cert, key = _server_cert(d, "server", "127.0.0.1", "IP:127.0.0.1,DNS:localhost")
    wcert, wkey = _server_cert(d, "wrong", "wrong.example", "DNS:wrong.example")
    ecert, ekey = _server_cert(d, "expired", "127.0.0.1", "IP:127.0.0.1,DNS:localhost", days=-1)
    no_cert = d / "no-certificate.pem"
    no_cert.write_text(key.read_text())  # a valid PEM file, but a key: no certificate in it
    return Certs(d, d / "ca.pem", cert, key, wcert, wkey, ecert, ekey, no_cert)


class TLSRedisServer(fleetlib.RedisServer):
    """redis-server with ``--port`` (plain: MONITOR, setup) and ``--tls-port``
    (the replicas' ``rediss://``), server cert for 127.0.0.1, clients not
    asked for certificates, and the ACL user ``fleet`` / ``s3cret``."""

    def __init__(self, certs: Certs) -> None:
        super().__init__()
        self.certs = certs
        self.tls_port = fleetlib.free_port()
        while self.tls_port == self.port:
            self.tls_port = fleetlib.free_port()

    def tls_url(self, user: str = ACL_USER, password: str = ACL_PASSWORD) -> str:
        return f"rediss://{user}:{password}@127.0.0.1:{self.tls_port}/0"

    def start(self) -> "TLSRedisServer":
        import time

        c = self.certs
        args = [self.exe, "--port", str(self.port), "--tls-port", str(self.tls_port), "--bind", "127.0.0.1",
                "--tls-cert-file", str(c.server_cert), "--tls-key-file", str(c.server_key),
                "--tls-ca-cert-file", str(c.ca), "--tls-auth-clients", "no",
                "--save", "", "--appendonly", "no", "--dir", self.dir, "--daemonize", "no",
                "--protected-mode", "yes", "--loglevel", "warning", "--maxmemory-policy", "noeviction"]
        log = Path(self.dir) / "redis.log"
        with open(log, "w") as f:
            self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=f)
        deadline = time.time() + 10
        while time.time() < deadline:
            if self.proc.poll() is not None:
                err = log.read_text(errors="replace")
                raise RuntimeError(f"redis-server with TLS exited {self.proc.returncode}: {err[-1500:]}")
            try:
                if self.client().ping():
                    break
            except Exception:
                time.sleep(0.05)
        else:
            raise RuntimeError(f"redis-server (TLS) did not start on port {self.port}")
        self.add_acl_user()
        return self

    def add_acl_user(self) -> None:
        cl: Any = self.client()
        cl.execute_command("ACL", "SETUSER", ACL_USER, "reset", "on", f">{ACL_PASSWORD}", "~*", "&*", "+@all")

    def check_tls_login(self) -> None:
        """The harness itself reaches the TLS port as the ACL user (so a
        replica's failure there is the replica's)."""
        import redis

        cl = redis.Redis(host="127.0.0.1", port=self.tls_port, username=ACL_USER, password=ACL_PASSWORD, ssl=True,
                         ssl_ca_certs=str(self.certs.ca), socket_timeout=5)
        assert cl.ping(), "the TLS port does not answer PING as the ACL user"
        assert cl.acl_whoami() in (ACL_USER, ACL_USER.encode())

    def __enter__(self) -> "TLSRedisServer":
        try:
            return self.start()
        except BaseException:
            self.close()
            raise
