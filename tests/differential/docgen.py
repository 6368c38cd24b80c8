#!/usr/bin/env python3
"""Seeded generator of policy documents for the cross-host document run.

    docgen.py --seed S --cases N [--start K]  > documents.jsonl

Writes one document a line, `{"name": "doc/<seed>/<index>", "text": ...}`:
the JSON text every host loads (`load-document`) and admits each class of.
Valid documents built from realistic classes, then spelled and mutated the
ways parsers disagree: integers as `9e5`, `900000.0`, `-0`; doubles with
15/16/17 significant digits, exponents, `1e400`, a few ulps above 1.0;
duplicate keys at every level; unknown fields; `max_attempts` (refused in
a document); nesting 28-40 deep; huge strings; non-ASCII names and versions,
`\\u` escapes, surrogate pairs and lone surrogates; whitespace, a BOM,
truncation, trailing text; and now and then a document over the 1 MiB
limit. The text is always valid Unicode (every host reads it as a string).
A tenth of the classes and of the documents carry a format-3 `health`
section (gen_health.py's, spelled the same ways): hosts load every text
both ways, `load-document` (which refuses sections) and
`load-health-document`.
"""

import argparse
import json
import random
import sys

from gen import int_spellings, ulp_up  # the same spellings as the vector generator
from gen_health import H  # format 3's sections, valid and invalid

MAX_WINDOW_MS = 366 * 24 * 3600 * 1000
NAMES = ["notification", "ledger", "invoice.paid", "événement", "注文", "🔔", "a", "x" * 300, "with space",
         "tab\tname", "quote\"d", "back\\slash", "", "\u00e9", "e\u0301", "k" * 40]
VERSIONS = ["", "2026-12-01", "v2", "ünïcödé", "🔔" * 10, "line\nbreak", "\u0000nul", "\u2028"]


class G:
    def __init__(self, seed):
        self.r = random.Random(seed)

    def pick(self, xs):
        return xs[self.r.randrange(len(xs))]

    def chance(self, p):
        return self.r.random() < p

    # -- numbers, as text ------------------------------------------------
    def int_text(self, n):
        if not self.chance(0.25):
            return str(n)
        return self.pick(int_spellings(n) + ([f"{n}0e-1"] if n else []))

    def float_text(self, x):
        if x == 0:
            return self.pick(["0", "-0", "0.0", "-0.0", "0e0", "-0E-3"])
        forms = [repr(x), f"{x:.15g}", f"{x:.16g}", f"{x:.17g}", f"{x:e}", f"{x:.17e}", f"{x * 10:.17g}e-1"]
        if float(x).is_integer() and abs(x) < 1e15:
            forms.append(str(int(x)))
        return self.pick(forms)

    def good(self, good, edges):
        """A valid value most of the time, else anything from the edges."""
        return self.pick(good) if self.chance(0.85) else self.pick(edges)

    def window(self):
        return self.good([60_000, 900_000, 3_600_000, 86_400_000, self.r.randrange(1000, 10**9)], [1000, 60_000, 900_000, 3_600_000, 86_400_000, 7 * 86_400_000, MAX_WINDOW_MS,
                          MAX_WINDOW_MS + 1, 0, 1, self.r.randrange(1, 10**10)])

    def factor(self):
        return self.good([1.5, 2.0, 3.0, self.r.uniform(1, 4), ulp_up(1.0, 3), 1.0000000000000002], [1.0, 10.0, ulp_up(1.0), 0.999, 1.0000000000000002,
                          2.0000000000000004, self.r.uniform(1, 4), 1e308, 0.1 + 0.2])

    def ratio(self):
        return self.good([0.1, 0.2, 0.5, self.r.random()], [0.1, 0.2, 0.5, 1.0, 0.0, 1e-9, 0.30000000000000004, 0.1 + 0.2, ulp_up(1.0), -0.1,
                          self.r.random()])

    # -- documents, as a list of (key, value-text) members ----------------
    def backoff(self):
        m = [("base_ms", self.int_text(self.good([100, 1000, 2000, self.r.randrange(1, 10**6)], [0, 60_000, 10**7]))),
             ("factor", self.float_text(self.factor())),
             ("cap_ms", self.int_text(self.good([300_000, 60_000, 3_600_000], [1000, 0, 86_400_000, 10**9])))]
        if self.chance(0.6):
            m.append(("jitter", json.dumps(self.good(["none", "full", "equal"], ["decorrelated", "", "Full"]))))
        return m

    def budget(self):
        return [("ratio", self.float_text(self.ratio())),
                ("window_ms", self.int_text(self.good([1000, 60_000, 10_000], [0, self.r.randrange(1, 10**8)]))),
                ("min_sample", self.int_text(self.good([0, 1, 50, 100, self.r.randrange(0, 1000)], [10**6, 2**32]))),
                ("sliding", self.good(["true", "false"], ["1", "null"]))]

    def klass(self):
        m = [("window_ms", self.int_text(self.window())), ("backoff", self.backoff())]
        if self.chance(0.4):
            m.append(("hard_cap", self.int_text(self.good([1, 16, 100, 50], [0, 101, 2**32]))))
        if self.chance(0.5):
            m.append(("budget", self.budget()))
        if self.chance(0.03):
            m.append(("max_attempts", "5"))
        self.r.shuffle(m)
        return m

    def value_text(self, v):
        """A JSON value as members (objects) or text, numbers spelled as elsewhere."""
        if isinstance(v, dict):
            return [(k, self.value_text(x)) for k, x in v.items()]
        if isinstance(v, bool) or v is None or isinstance(v, (str, list)):
            return json.dumps(v)
        return self.int_text(v) if isinstance(v, int) else self.float_text(v)

    def health(self):
        """A format-3 `health` section (gen_health.py's: any subset of fields, every invalid path)."""
        return self.value_text(H(self).doc_section())

    def document(self):
        classes = [(self.pick(NAMES) if self.chance(0.3) else f"c{i}", self.klass())
                   for i in range(self.pick([1, 1, 2, 3, 4, 0]))]
        for _, c in classes:
            if self.chance(0.1):
                c.insert(self.r.randrange(len(c) + 1), ("health", self.health() if self.chance(0.9) else "null"))
        m = [("classes", classes)]
        if self.chance(0.1):
            m.append(("health", self.health()))
        if self.chance(0.7):
            v = self.pick(VERSIONS) if self.chance(0.9) else "v" * self.pick([1, 100, 100, 5000, 5000, 70_000])
            m.insert(0, ("version", json.dumps(v, ensure_ascii=self.chance(0.5))))
        return m

    # -- mutations ----------------------------------------------------------
    def mutate(self, m, depth=0):
        """Mutate a members list in place, at this level or a nested one."""
        nested = [i for i, (_, v) in enumerate(m) if isinstance(v, list)]
        if nested and depth < 3 and self.chance(0.6):
            self.mutate(m[self.pick(nested)][1], depth + 1)
            return
        what = self.r.randrange(6)
        if what == 0 and m:
            m.insert(self.r.randrange(len(m) + 1), self.pick(m))  # a duplicate key
        elif what == 1:
            m.append((self.pick(["extra", "Window_ms", "window_ms ", "backoff"]), "1"))
        elif what == 2:
            n = self.pick([28, 30, 31, 32, 33, 34, 40])
            inner = "1" if self.chance(0.5) else "{}"
            deep = "".join(self.pick(["[", '{"k":']) for _ in range(n))
            closers = "".join("]" if c == "[" else "}" for c in reversed([c for c in deep if c in "[{"]))
            m.append(("deep", deep + inner + closers))
        elif what == 3 and m:
            i = self.r.randrange(len(m))
            m[i] = (m[i][0], self.pick(["null", '"2000"', "[]", "{}", "true", "1e400", "-1", "18446744073709551616",
                                        "9007199254740993", "1.5", "NaN", "0x10", "+1", ".5", "01"]))
        elif what == 4 and m:
            i = self.r.randrange(len(m))
            m[i] = (self.pick(["\u00e9", "\\u0065", "wïndow_ms", m[i][0].upper()]), m[i][1])
        else:
            m.append((self.pick(["\U0001f514", "x" * 1000]), json.dumps("\u00e9\U0001f514" * 50)))

    def text(self, m, r_ws):
        parts = []
        for k, v in m:
            key = json.dumps(k, ensure_ascii=self.chance(0.5)) if not k.startswith("\\u") else f'"{k}"'
            parts.append(key + r_ws + ":" + r_ws + (self.text(v, r_ws) if isinstance(v, list) else v))
        return "{" + ("," + r_ws).join(parts) + "}"

    def case(self):
        m = self.document()
        for _ in range(self.pick([0, 0, 0, 0, 0, 1, 1, 2, 3])):
            self.mutate(m)
        ws = self.pick(["", "", " ", "\n  ", "\t", "\r\n"])
        t = self.text(m, ws)
        k = self.r.random()
        if k < 0.02:
            t = t[: self.r.randrange(len(t))]  # truncated
        elif k < 0.03:
            t = "\ufeff" + t
        elif k < 0.04:
            t = t + self.pick([" x", "}", ",", " \n", "\u0000"])
        elif k < 0.05:
            t = self.pick(['"\\ud800"', '{"version": "\\ud800", "classes": {}}', '{"version": "\\udc00\\ud800"}',
                           '{"version": "\\ud83d\\udd14", "classes": {"a": 1}}', "[]", "null", "", "   "])
        elif k > 0.99995:
            t = '{"version": "' + "v" * (1 << 20) + '", "classes": {}}'  # over 1 MiB
        return t


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cases", type=int, default=1000)
    ap.add_argument("--start", type=int, default=0)
    a = ap.parse_args()
    out = sys.stdout
    for i in range(a.start, a.start + a.cases):
        g = G(a.seed * 1_000_003 + i)  # each document from its own seed: regenerable alone
        out.write(json.dumps({"name": f"doc/{a.seed}/{i}", "text": g.case()}) + "\n")


if __name__ == "__main__":
    main()
