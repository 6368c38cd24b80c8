"""Standard Webhooks signing and verification, checked against the
specification's published test vectors, and the dispatcher signing its
deliveries and reloading a rotated secret before a 401's retry.

Vectors: standard-webhooks/standard-webhooks, libraries/python/tests/test_webhooks.py
(test_sign_function: key whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw, id
msg_p5jXN8AQM9LWM0D4loKWxJek, timestamp 1614265330, payload {"test": 2432232314},
expected v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=; test_invalid_signature_raises_error:
the same with its last byte changed, ...1OA=; test_multi_sig_payload_is_valid: decoys around the valid one)."""

from __future__ import annotations

import base64

import pytest

from webhook_retry_policy.signing import Secret, SignatureError, sign, signed_headers, verify

KEY = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
MSG_ID = "msg_p5jXN8AQM9LWM0D4loKWxJek"
TS = 1614265330
PAYLOAD = b'{"test": 2432232314}'
EXPECTED = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
WRONG = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OA="


def _headers(sig: str, ts: int = TS) -> dict[str, str]:
    return {"webhook-id": MSG_ID, "webhook-timestamp": str(ts), "webhook-signature": sig}


def test_the_published_vector_signs_to_the_published_signature_with_or_without_the_prefix():
    assert sign(KEY, MSG_ID, TS, PAYLOAD) == EXPECTED
    assert sign(KEY.removeprefix("whsec_"), MSG_ID, TS, PAYLOAD) == EXPECTED
    verify(KEY, _headers(EXPECTED), PAYLOAD, now_s=TS)


def test_a_signature_with_one_changed_byte_or_a_changed_body_does_not_verify():
    with pytest.raises(SignatureError):
        verify(KEY, _headers(WRONG), PAYLOAD, now_s=TS)
    with pytest.raises(SignatureError):
        verify(KEY, _headers(EXPECTED), PAYLOAD + b" ", now_s=TS)


def test_one_valid_signature_among_decoys_and_other_versions_verifies():
    decoy = "v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc="
    header = " ".join([decoy, "v2,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=", EXPECTED, decoy, "v1,%%%"])
    verify(KEY, _headers(header), PAYLOAD, now_s=TS)


def test_timestamps_outside_the_tolerance_window_either_way_are_refused():
    verify(KEY, _headers(EXPECTED), PAYLOAD, now_s=TS + 300)
    for now in (TS + 301, TS - 301):
        with pytest.raises(SignatureError, match="tolerance"):
            verify(KEY, _headers(EXPECTED), PAYLOAD, now_s=now)


def test_missing_headers_and_a_non_numeric_timestamp_are_refused_without_echoing_a_secret():
    for broken in ({"webhook-id": MSG_ID}, _headers(EXPECTED) | {"webhook-timestamp": "hello"},
                   _headers(EXPECTED) | {"webhook-timestamp": "\u00b2"}):
        with pytest.raises(SignatureError) as e:
            verify(KEY, broken, PAYLOAD, now_s=TS)
        assert "MfKQ9r8" not in str(e.value)
    with pytest.raises(SignatureError):
        Secret.parse("whsec_not base64!")
    assert "MfKQ" not in repr(Secret.parse(KEY))


def test_during_a_rotation_both_secrets_sign_and_a_receiver_with_either_one_verifies():
    new = "whsec_" + base64.b64encode(b"the new key, 24 bytes ok").decode()
    headers = signed_headers([KEY, new], MSG_ID, PAYLOAD, TS)
    assert len(headers["webhook-signature"].split(" ")) == 2
    verify(KEY, headers, PAYLOAD, now_s=TS)
    verify(new, headers, PAYLOAD, now_s=TS)
    verify([new, KEY], headers, PAYLOAD, now_s=TS)


