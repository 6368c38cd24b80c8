"""Certificates made at test time with the `openssl` CLI: a CA, server
certificates for 127.0.0.1 (IP SAN), for another name and for the name
localhost, all signed by that CA; and a second CA that signed none."""

from __future__ import annotations

import ssl
import subprocess
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Certs:
    ca: Path  # the CA that signed both server certificates
    other_ca: Path  # a CA that signed nothing here
    loopback_cert: Path  # CN/SAN IP:127.0.0.1
    loopback_key: Path
    wrong_name_cert: Path  # SAN DNS:not-this-host.example only
    wrong_name_key: Path
    localhost_cert: Path  # SAN DNS:localhost only (no IP)
    localhost_key: Path

    def server_context(self, *, wrong_name: bool = False, localhost: bool = False) -> ssl.SSLContext:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        if localhost:
            ctx.load_cert_chain(self.localhost_cert, self.localhost_key)
        elif wrong_name:
            ctx.load_cert_chain(self.wrong_name_cert, self.wrong_name_key)
        else:
            ctx.load_cert_chain(self.loopback_cert, self.loopback_key)
        return ctx


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def _ca(d: Path, name: str) -> None:
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", f"/CN={name}",
             "-keyout", f"{name}.key", "-out", f"{name}.pem",
             "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign", cwd=d)


def _leaf(d: Path, name: str, san: str) -> None:
    _openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", f"/CN={name}", "-keyout", f"{name}.key",
             "-out", f"{name}.csr", cwd=d)
    (d / f"{name}.ext").write_text(f"subjectAltName={san}\nbasicConstraints=CA:FALSE\n"
                                   "keyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n")
    _openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
             "-days", "2", "-out", f"{name}.pem", "-extfile", f"{name}.ext", cwd=d)


def make_certs(d: Path) -> Certs:
    d.mkdir(parents=True, exist_ok=True)
    _ca(d, "ca")
    _ca(d, "other-ca")
    _leaf(d, "loopback", "IP:127.0.0.1")
    _leaf(d, "wrong-name", "DNS:not-this-host.example")
    _leaf(d, "localhost", "DNS:localhost")
    return Certs(d / "ca.pem", d / "other-ca.pem", d / "loopback.pem", d / "loopback.key",
                 d / "wrong-name.pem", d / "wrong-name.key", d / "localhost.pem", d / "localhost.key")
