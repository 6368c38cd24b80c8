"""The Python driver of the cross-host document run (tests/differential/docs):
``{"name", "text"}`` lines in, one result line per document out, the shape
src/bin/docs.rs documents: ``PolicyOps.load_document`` on the text, then
``admit`` of every class at 1000 ms; under ``"health"`` the text through
``load_health_document`` (version and each class's name and policy hash)."""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "host-examples", "python", "src"))

from webhook_retry_policy import PolicyError, PolicyTrap  # noqa: E402
from webhook_retry_policy.ops import PolicyOps  # noqa: E402

NOW_MS = 1000


def result(ops, text):
    try:
        doc = ops.load_document(text)
    except PolicyError as e:
        return {"error": [getattr(e.code, "value", e.code), e.field]}
    except PolicyTrap as e:
        return {"trap": str(e)}
    classes = []
    for c in doc.classes:
        try:
            a = ops.admit(doc, c.name, NOW_MS)
        except PolicyError as e:
            return {"error": [getattr(e.code, "value", e.code), e.field], "admitting": c.name}
        except PolicyTrap as e:
            return {"trap": str(e), "admitting": c.name}
        s = a.schedule
        classes.append([a.class_, a.policy_hash, a.deadline_ms, s.max_attempts, s.expected_span_ms])
    return {"version": doc.version, "classes": classes}


def health(ops, text):
    try:
        doc = ops.load_health_document(text)
    except PolicyError as e:
        return {"error": [getattr(e.code, "value", e.code), e.field]}
    except PolicyTrap as e:
        return {"trap": str(e)}
    return {"version": doc.version, "classes": [[c.name, c.policy_hash] for c in doc.classes]}


def main():
    ops = PolicyOps()
    out = sys.stdout
    for line in sys.stdin:
        if line.strip():
            case = json.loads(line)
            r = result(ops, case["text"])
            r["health"] = health(ops, case["text"])
            r["name"] = case["name"]
            out.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()
