"""The ``--trust-key`` file (docs/rollout.md "Trust"): the host reads it (a
regular file of at most 1 MiB, refused without reading it whole or
blocking), the component's ``rollout-open`` judges its text; both refusals
are ``RolloutError`` ``rollout_trust_invalid``. What a text holds (PEM
blocks, keys of other kinds) is the trust group of the shared vectors."""

from __future__ import annotations

import os

import pytest

pytest.importorskip("cryptography")

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey  # noqa: E402
from rollout_fleet import key_id_of, public_pem  # noqa: E402

from webhook_retry_policy.rollout import (  # noqa: E402
    MAX_TRUST_BYTES,
    ROLLOUT_CODES,
    Follower,
    RolloutError,
    read_trust_file,
)

KEY = Ed25519PrivateKey.generate()


class NoStore:
    def __getattr__(self, name):
        raise AssertionError(f"opening a follower made a store call: {name}")


@pytest.mark.parametrize("kind", ["missing", "directory", "fifo", "too large", "not utf-8"])
def test_a_trust_file_that_cannot_be_read_as_text_is_trust_invalid_without_blocking(tmp_path, kind):
    path = tmp_path / "trust.pem"
    if kind == "directory":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "too large":
        path.write_bytes(b"#" * MAX_TRUST_BYTES + b"\n")
    elif kind == "not utf-8":
        path.write_bytes(b"\xff\xfe")
    with pytest.raises(RolloutError) as e:
        read_trust_file(str(path))
    assert e.value.code == "rollout_trust_invalid" and str(path) in e.value.message


def test_a_trust_file_of_exactly_1_mib_is_read_whole(tmp_path):
    path = tmp_path / "trust.pem"
    pem = public_pem(KEY)
    path.write_text(pem + "#" * (MAX_TRUST_BYTES - len(pem)))
    assert read_trust_file(str(path)) == path.read_text()


def test_the_follower_opens_on_the_files_keys_and_refuses_a_text_the_component_refuses(tmp_path):
    path = tmp_path / "trust.pem"
    path.write_text("# the policy team\n" + public_pem(KEY) + public_pem(KEY))
    f = Follower(read_trust_file(str(path)), "python-a", store=NoStore())
    assert f.key_ids == [key_id_of(KEY.public_key())]  # the same key twice is one key
    for text in ("no key here\n", public_pem(KEY) + "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA\n"):
        with pytest.raises(RolloutError) as e:
            Follower(text, "python-a", store=NoStore())
        assert e.value.code == "rollout_trust_invalid" and e.value.message


def test_a_replica_id_the_component_refuses_is_input_invalid():
    with pytest.raises(RolloutError) as e:
        Follower(public_pem(KEY), "x" * 201, store=NoStore())
    assert e.value.code == "rollout_input_invalid" and "replica_id" in e.value.message


def test_the_error_codes_are_closed():
    assert set(ROLLOUT_CODES) == {"rollout_record_invalid", "rollout_trust_invalid", "rollout_key_unknown",
                                  "rollout_signature_invalid", "rollout_artifact_missing", "rollout_input_invalid"}
    with pytest.raises(ValueError):
        RolloutError("rollout_whatever", "no")
