#!/usr/bin/env python3
"""Writes tests/vectors-rollout/rollout.json: the parts of docs/rollout.md
that every language computes (the record reader, the canary rule, the trust
file, the signature check). GENERATED output - edit this file, then run
`python3 tests/vectors-rollout/generate.py`; scripts/test runs it with `--check`
(a stale file fails).

Needs `cryptography` (Ed25519). Keys come from fixed seeds, and Ed25519
signatures are deterministic, so the output is byte-stable."""
import base64
import hashlib
import json
import pathlib
import struct
import sys

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519

OUT = pathlib.Path(__file__).with_name("rollout.json")
PREFIX = b"webhook-retry-policy artifact v1\n"


def key(seed_byte):
    return ed25519.Ed25519PrivateKey.from_private_bytes(bytes([seed_byte]) * 32)


def pem(pk):
    return pk.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()


def key_id(pk):
    raw = pk.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return hashlib.sha256(raw).hexdigest()[:16]


def sign(pk, sha):
    return base64.b64encode(pk.sign(PREFIX + sha.encode())).decode()


def bucket(replica_id):
    return struct.unpack(">I", hashlib.sha256(replica_id.encode()).digest()[:4])[0] % 100


def sha(label):
    return hashlib.sha256(label.encode()).hexdigest()


A, B, C, D = sha("a"), sha("b"), sha("c"), sha("d")


def canonical(v, epoch, stable, canary, previous):
    c = "null" if canary is None else '{"sha256":"%s","percent":%d}' % canary
    return '{"v":%d,"epoch":%d,"stable":"%s","canary":%s,"previous":[%s]}' % (
        v, epoch, stable, c, ",".join('"%s"' % p for p in previous))


IDS = ["rust-a", "rust-b", "node-a", "node-b", "python-a", "python-b", "go-a", "go-b", "", "réplica-ü", "x" * 200]


def bucket_cases():
    return [{"replica_id": r, "bucket": bucket(r)} for r in IDS]


def in_and_out(percent):
    inside = next(r for r in (f"r{i}" for i in range(1000)) if bucket(r) < percent)
    outside = next(r for r in (f"r{i}" for i in range(1000)) if bucket(r) >= percent)
    return inside, outside


def select_cases():
    cases = []

    def ok(name, record, rid, desired):
        cases.append({"name": name, "record": record, "replica_id": rid, "expect": {"desired": desired}})

    def bad(name, record, rid="go-a"):
        cases.append({"name": name, "record": record, "replica_id": rid, "expect": {"error": "rollout_record_invalid"}})

    ok("no canary: everyone runs stable", canonical(1, 1, A, None, []), "go-a", A)
    for p in (1, 25, 99):
        i, o = in_and_out(p)
        ok(f"canary {p}%: a replica whose bucket is below {p} runs the canary", canonical(1, 2, A, (B, p), []), i, B)
        ok(f"canary {p}%: a replica whose bucket is {p} or more runs stable", canonical(1, 2, A, (B, p), []), o, A)
    for r in IDS[:8]:
        ok(f"canary 25%, replica {r} (bucket {bucket(r)})", canonical(1, 3, A, (B, 25), [C]), r, B if bucket(r) < 25 else A)
    ok("canary 100% names every replica", canonical(1, 2, A, (B, 100), []), "go-b", B)
    ok("previous artifacts are kept, not run", canonical(1, 9, A, None, [B, C, D]), "rust-a", A)
    ok("five previous artifacts are allowed", canonical(1, 9, A, None, [sha(str(i)) for i in range(5)]), "rust-a", A)
    ok("the largest epoch is 2^53 - 1", canonical(1, 2**53 - 1, A, None, []), "node-a", A)
    good = canonical(1, 4, A, (B, 25), [C])
    bad("an empty text", "")
    bad("not JSON", "stable=" + A)
    bad("JSON null", "null")
    bad("an array", "[]")
    bad("whitespace after a colon", good.replace('"v":1', '"v": 1'))
    bad("a trailing newline", good + "\n")
    bad("keys in another order", good.replace('{"v":1,"epoch":4,', '{"epoch":4,"v":1,'))
    bad("a duplicate key", good.replace('{"v":1,', '{"v":1,"v":1,'))
    bad("an unknown field", good[:-1] + ',"note":"x"}')
    bad("a missing field", good.replace(',"previous":["%s"]' % C, ""))
    bad("version 2", canonical(2, 4, A, None, []))
    bad("version as a string", good.replace('"v":1', '"v":"1"'))
    bad("epoch 0", canonical(1, 0, A, None, []))
    bad("a negative epoch", good.replace('"epoch":4', '"epoch":-4'))
    bad("a float epoch", good.replace('"epoch":4', '"epoch":4.0'))
    bad("an exponent epoch", good.replace('"epoch":4', '"epoch":4e0'))
    bad("epoch 2^53", canonical(1, 2**53, A, None, []))
    bad("an upper-case digest", canonical(1, 4, A.upper(), None, []))
    bad("a 63-digit digest", canonical(1, 4, A[:63], None, []))
    bad("a non-hex digest", canonical(1, 4, "g" + A[1:], None, []))
    bad("stable null", good.replace('"stable":"%s"' % A, '"stable":null'))
    bad("canary percent 0", canonical(1, 4, A, (B, 0), []))
    bad("canary percent 101", canonical(1, 4, A, (B, 101), []))
    bad("canary percent 25.5", good.replace('"percent":25', '"percent":25.5'))
    bad("canary equal to stable", canonical(1, 4, A, (A, 25), []))
    bad("canary keys in another order", good.replace('{"sha256":"%s","percent":25}' % B, '{"percent":25,"sha256":"%s"}' % B))
    bad("canary with an unknown field", good.replace('"percent":25}', '"percent":25,"x":1}'))
    bad("canary as a string", good.replace('{"sha256":"%s","percent":25}' % B, '"%s"' % B))
    bad("six previous artifacts", canonical(1, 4, A, None, [sha(str(i)) for i in range(6)]))
    bad("stable among previous", canonical(1, 4, A, None, [B, A]))
    bad("previous not an array", good.replace('"previous":["%s"]' % C, '"previous":"%s"' % C))
    bad("a text over 4096 bytes", good[:-1] + " " * 4100 + "}")
    return cases


def trust_cases():
    k1, k2 = key(1), key(2)
    ec_pem = EC_PEM
    return [
        {"name": "one Ed25519 public key", "pem": pem(k1), "expect": {"key_ids": [key_id(k1)]}},
        {"name": "two keys while one rotates, text between them ignored", "pem": "# old\n" + pem(k1) + "\n# new\n" + pem(k2),
         "expect": {"key_ids": [key_id(k1), key_id(k2)]}},
        {"name": "an empty file", "pem": "", "expect": {"error": "rollout_trust_invalid"}},
        {"name": "text without a PEM block", "pem": "ed25519 " + key_id(k1) + "\n", "expect": {"error": "rollout_trust_invalid"}},
        {"name": "a P-256 public key is not Ed25519", "pem": ec_pem, "expect": {"error": "rollout_trust_invalid"}},
        {"name": "an Ed25519 key beside a P-256 key", "pem": pem(k1) + ec_pem, "expect": {"error": "rollout_trust_invalid"}},
        {"name": "a PEM block whose base64 is damaged", "pem": pem(k1).replace("MCowBQYDK2VwAyEA", "MCowBQYDK2VwAyE!"),
         "expect": {"error": "rollout_trust_invalid"}},
        {"name": "a private key is not a public key", "pem": key(3).private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode(),
         "expect": {"error": "rollout_trust_invalid"}},
    ]


# A P-256 public key (not Ed25519), generated once with `cryptography` and kept as text so the output is stable.
EC_PEM = ("-----BEGIN PUBLIC KEY-----\n"
          "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE5/OdFux6o2d8VCNWgvkkz+x4xLPl\n"
          "3GfOZExoQwORDYE/BoNWh2QjGklKJT61b4vKM1kfg8FHhnZhhth0Y3NRiA==\n"
          "-----END PUBLIC KEY-----\n")


def nonzero_pad(b64):
    """The same 64 bytes with the 4 unused bits of the last character set: a lenient decoder reads it back."""
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    i = alphabet.index(b64[-3])
    return b64[:-3] + alphabet[(i & ~0xF) | 0x5] + "=="


def verify_cases():
    k1, k2, k3 = key(1), key(2), key(3)
    trust = pem(k1) + pem(k2)
    good = sign(k1, A)
    sig = base64.b64decode(good)
    flipped = base64.b64encode(sig[:10] + bytes([sig[10] ^ 1]) + sig[11:]).decode()
    # a digest whose signature's base64 holds "+" or "/", so the url-safe alphabet differs
    URLSAFE_SHA = next(d for d in (sha(str(i)) for i in range(100)) if set(sign(k1, d)) & set("+/"))
    URLSAFE_SIG = sign(k1, URLSAFE_SHA)
    cases = [
        ("a signature by a trusted key verifies", key_id(k1), good, A, "ok"),
        ("the second trusted key verifies its own signature", key_id(k2), sign(k2, A), A, "ok"),
        ("an unknown key id", key_id(k3), sign(k3, A), A, "rollout_key_unknown"),
        ("a key id in upper case is unknown", key_id(k1).upper(), good, A, "rollout_key_unknown"),
        ("a signature over another digest (a truncated artifact)", key_id(k1), good, B, "rollout_signature_invalid"),
        ("a signature by the other trusted key under this key's id", key_id(k1), sign(k2, A), A, "rollout_signature_invalid"),
        ("one flipped bit", key_id(k1), flipped, A, "rollout_signature_invalid"),
        ("an empty signature", key_id(k1), "", A, "rollout_signature_invalid"),
        ("not base64", key_id(k1), "!" * 88, A, "rollout_signature_invalid"),
        ("base64 without padding", key_id(k1), good.rstrip("="), A, "rollout_signature_invalid"),
        ("base64 of 63 bytes", key_id(k1), base64.b64encode(sig[:63]).decode(), A, "rollout_signature_invalid"),
        ("base64 of 65 bytes", key_id(k1), base64.b64encode(sig + b"\0").decode(), A, "rollout_signature_invalid"),
        ("url-safe base64 is not standard base64", key_id(k1), URLSAFE_SIG.replace("+", "-").replace("/", "_"),
         URLSAFE_SHA, "rollout_signature_invalid"),
        ("the same signature in standard base64 verifies", key_id(k1), URLSAFE_SIG, URLSAFE_SHA, "ok"),
        ("base64 with non-zero padding bits is not canonical", key_id(k1), nonzero_pad(good), A, "rollout_signature_invalid"),
        ("a signature over the digest without the prefix", key_id(k1), base64.b64encode(k1.sign(A.encode())).decode(), A,
         "rollout_signature_invalid"),
        ("a signature over the raw artifact digest bytes", key_id(k1), base64.b64encode(k1.sign(bytes.fromhex(A))).decode(), A,
         "rollout_signature_invalid"),
    ]
    return [{"name": n, "trust": trust, "key_id": kid, "signature": s, "artifact_sha256": d, "expect": e}
            for n, kid, s, d, e in cases]


def main():
    doc = {
        "about": "docs/rollout.md: the record reader (select), the canary rule (bucket), the trust file (trust) and "
                 "the signature check (verify). GENERATED - DO NOT EDIT; regenerate with "
                 "python3 tests/vectors-rollout/generate.py. Runners reject unknown fields and print the failing case's name.",
        "signed_message_prefix": PREFIX.decode(),
        "bucket": bucket_cases(),
        "select": select_cases(),
        "trust": trust_cases(),
        "verify": verify_cases(),
    }
    text = json.dumps(doc, indent=1, ensure_ascii=False) + "\n"
    n = sum(len(doc[k]) for k in ("bucket", "select", "trust", "verify"))
    if "--check" in sys.argv[1:]:
        if OUT.read_text() != text:
            sys.exit(f"{OUT} is stale: run python3 {__file__}")
        print(f"{OUT}: current ({n} cases)")
        return
    OUT.write_text(text)
    print(f"{OUT}: {n} cases")


if __name__ == "__main__":
    main()
