"""The rollout library's edges beyond the shared vectors: inputs a JSON
parser accepts but the record refuses, trust files that are not files, and
the one-line error when the ``rollout`` extra is missing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("cryptography")

from webhook_retry_policy.rollout import (  # noqa: E402
    ROLLOUT_CODES,
    RolloutError,
    bucket,
    canonical_text,
    read_record,
    read_trust_file,
)

SHA_A, SHA_B = "a" * 64, "b" * 64
GOOD = f'{{"v":1,"epoch":3,"stable":"{SHA_A}","canary":{{"sha256":"{SHA_B}","percent":10}},"previous":[]}}'
SRC = Path(__file__).resolve().parents[1] / "src"


def code_of(text: str | bytes) -> str:
    with pytest.raises(RolloutError) as e:
        read_record(text)
    return e.value.code


def test_a_canonical_record_round_trips_byte_for_byte():
    record = read_record(GOOD)
    assert canonical_text(record) == GOOD and record.canary is not None and record.canary.percent == 10
    assert read_record(GOOD.encode()) == record


@pytest.mark.parametrize("text", [
    GOOD.replace('"v":1', '"v":true'),
    GOOD.replace('"percent":10', '"percent":true'),
    GOOD.replace('"epoch":3', '"epoch":NaN'),
    GOOD.replace('"epoch":3', '"epoch":3.0'),
    GOOD.replace('"epoch":3', '"epoch":-0'),
    GOOD.replace(SHA_A, "\\u0061" + SHA_A[1:]),  # an escape that parses to the same digest
    GOOD.encode()[:-1] + b"\xff}",
    "[" * 3000 + "]" * 3000,
    GOOD + " ",
])
def test_what_a_json_parser_accepts_but_the_canonical_text_refuses_is_record_invalid(text):
    assert code_of(text) == "rollout_record_invalid"


def test_the_bucket_is_the_first_four_bytes_of_the_digest_mod_100():
    # sha256("a") = ca978112...: 0xca978112 % 100
    assert bucket("a") == 0xCA978112 % 100


@pytest.mark.parametrize("kind", ["missing", "directory", "fifo", "too large", "not utf-8"])
def test_a_trust_file_that_cannot_be_read_as_text_is_trust_invalid_without_blocking(tmp_path, kind):
    path = tmp_path / "trust.pem"
    if kind == "directory":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "too large":
        path.write_bytes(b"#" * (1 << 20) + b"\n")
    elif kind == "not utf-8":
        path.write_bytes(b"\xff\xfe")
    with pytest.raises(RolloutError) as e:
        read_trust_file(str(path))
    assert e.value.code == "rollout_trust_invalid" and str(path) in e.value.message


def test_the_error_codes_are_closed():
    assert set(ROLLOUT_CODES) == {"rollout_record_invalid", "rollout_trust_invalid", "rollout_key_unknown",
                                  "rollout_signature_invalid", "rollout_artifact_missing"}
    with pytest.raises(ValueError):
        RolloutError("rollout_whatever", "no")


def test_without_the_rollout_extra_importing_the_module_is_one_line_naming_it():
    hide = "import sys; sys.modules['cryptography'] = None; "  # as if the extra were not installed
    env = dict(os.environ, PYTHONPATH=str(SRC))
    lib = subprocess.run([sys.executable, "-c", hide + "import webhook_retry_policy.rollout"], capture_output=True,
                         text=True, env=env, timeout=60)
    assert lib.returncode == 1, lib.stderr
    assert lib.stderr.splitlines()[-1] == ("ModuleNotFoundError: webhook_retry_policy.rollout needs the 'rollout' extra "
                                           "(missing: cryptography): pip install 'webhook-retry-policy[rollout]'")


def test_a_trust_file_with_a_private_key_or_an_unterminated_block_beside_a_good_key_is_trust_invalid():
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat, PublicFormat

    from webhook_retry_policy.rollout import read_trust

    key = Ed25519PrivateKey.generate()
    good = key.public_key().public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo).decode()
    private = key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption()).decode()
    assert len(read_trust(good + "\n# notes\n" + good)) == 1  # the same key twice is one key id
    for text in (good + private, good + "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA\n",
                 good + "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"):
        with pytest.raises(RolloutError) as e:
            read_trust(text)
        assert e.value.code == "rollout_trust_invalid"
