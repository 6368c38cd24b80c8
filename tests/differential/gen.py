#!/usr/bin/env python3
"""Seeded generator of conformance cases for the cross-host differential run.

    gen.py --seed S --cases N [--start K]  > cases.jsonl

Writes one case a line, `{"format", "name", "op", "input"}` (no `expect`: the native
expectation writer fills it). Every op of the contract, format 2 here
(plan, delay, classify_status, classify_error, budget, decide, evaluate,
settle, resume, retry_after) and format 3 in gen_health.py (a quarter of
the cases), valid and invalid values at every boundary: attempt
0/1/max-1/max/u32 max, statuses 99/100/599/600, 401/403/410/429, Retry-After
strings (digits, huge, Unicode digits, IMF dates with leap days and seconds,
garbage), counts at the min_sample floor and on the ratio's boundary,
factors 1 + ulp, `-0`, 16-17 significant digits, exponents.

Inputs are always well formed (the fields each op names, with the right JSON
types), since a runner treats a shape error as a broken vector; the values
are anything the types allow. Numbers are written with the spelling chosen
here and the expectation writer copies the text verbatim, so each host's own
JSON parser reads it. Case names are `<op>/<seed>/<index>`, so a failing case
can be regenerated alone: `gen.py --seed S --start INDEX --cases 1`.
"""

import argparse
import json
import math
import random
import struct
import sys

import gen_health

U53 = (1 << 53) - 1
U32 = (1 << 32) - 1


class Raw(str):
    """A number written exactly as given."""


def dump(v, r):
    if isinstance(v, Raw):
        return str(v)
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        assert math.isfinite(v)
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=r.random() < 0.5)
    if isinstance(v, dict):
        return "{" + ",".join(json.dumps(k) + ":" + dump(x, r) for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ",".join(dump(x, r) for x in v) + "]"
    raise TypeError(type(v))


def int_spellings(n):
    """Ways to write the non-negative integer n that every JSON parser reads as n."""
    if n == 0:
        return ["-0", "0.0", "-0.0", "0e0", "0E+5", "-0e-0"]
    forms = [f"{n}.0", f"{n}.000"]
    s = str(n)
    stripped = s.rstrip("0")
    zeros = len(s) - len(stripped)
    if zeros:
        forms += [f"{stripped}e{zeros}", f"{stripped}E+{zeros}"]
    if len(s) > 1 and n < (1 << 50):
        forms.append(f"{s[0]}.{s[1:]}e{len(s) - 1}")
    return forms


def ulp_up(x, n=1):
    return struct.unpack("<d", struct.pack("<q", struct.unpack("<q", struct.pack("<d", x))[0] + n))[0]


class G:
    def __init__(self, seed, spell=False):
        self.r = random.Random(seed)
        self.spell = spell

    def pick(self, xs):
        return xs[self.r.randrange(len(xs))]

    def chance(self, p):
        return self.r.random() < p

    # -- integers --------------------------------------------------------
    def spell_int(self, n):
        """An integer, sometimes spelled as a JSON float or with an exponent."""
        if not self.spell or not self.chance(0.06):
            return n
        return Raw(self.pick(int_spellings(n)))

    def u64(self, edges=(), lo=0, hi=U53):
        r = self.r.random()
        if edges and r < 0.55:
            n = self.pick(edges)
        elif r < 0.75:
            n = self.r.randrange(0, 1000)
        elif r < 0.9:
            n = self.r.randrange(0, 1 << self.r.randrange(1, 54))
        else:
            n = self.r.randrange(lo, hi + 1)
        return self.spell_int(max(0, min(U53, n)))

    def u32(self, edges):
        if self.chance(0.7):
            n = self.pick(edges)
        elif self.chance(0.5):
            n = self.r.randrange(0, 200)
        else:
            n = self.r.randrange(0, U32 + 1)
        return self.spell_int(n)

    # -- doubles ---------------------------------------------------------
    def spell_float(self, x):
        """A double: repr, or 15/16/17 significant digits, or an exponent form."""
        if x == 0:
            return Raw(self.pick(["0", "-0", "0.0", "-0.0", "0e0", "-0E-3"]))
        k = self.r.randrange(6)
        if k == 0:
            return x
        if k == 1:
            return Raw("%.17g" % x)
        if k == 2:
            return Raw("%.16g" % x)
        if k == 3:
            return Raw("%.15g" % x)
        if k == 4:
            return Raw("%.17e" % x)
        m, e = ("%.16e" % x).split("e")
        return Raw(m.replace(".", "") + "e" + str(int(e) - 16))

    def factor(self):
        edges = [
            Raw("1"), Raw("1.0"), Raw("1e0"), Raw("10E-1"), Raw("0.1e1"), Raw("2"), Raw("2.0"),
            Raw("1.0000000000000002"), Raw("1.0000000000000004"), Raw("1.00000000000000011"),
            Raw("1.000000000000000111"), Raw("1.00000000000000012"), Raw("1.000000000000001"),
            Raw("1.0000000000000000000000000000001"), Raw("2.0000000000000004"), Raw("1.5"),
            Raw("1.7976931348623157e308"), Raw("1.7976931348623158e308"), Raw("1e308"), Raw("1e300"),
            Raw("0.9999999999999999"), Raw("0.99999999999999999"), Raw("-0"), Raw("-0.0"), Raw("0"),
            Raw("-1"), Raw("-2.5"), Raw("3.0000000000000004"), Raw("1.1"), Raw("1.25e0"),
        ]
        if self.chance(0.45):
            return self.pick(edges)
        if self.chance(0.4):
            return self.spell_float(ulp_up(1.0, self.r.randrange(1, 1 << self.r.randrange(1, 40))))
        return self.spell_float(self.r.uniform(1.0, self.pick([1.01, 2.0, 3.0, 10.0, 1000.0])))

    def ratio(self):
        edges = [
            Raw("0"), Raw("-0"), Raw("0.0"), Raw("1"), Raw("1.0"), Raw("1e0"), Raw("0.1"), Raw("1e-1"),
            Raw("0.10000000000000001"), Raw("0.30000000000000004"), Raw("0.9999999999999999"),
            Raw("0.99999999999999999"), Raw("1.0000000000000002"), Raw("1.00000000000000011"),
            Raw("5e-324"), Raw("4.9406564584124654e-324"), Raw("2.2250738585072014e-308"),
            Raw("1e-300"), Raw("0.5"), Raw("-0.1"), Raw("2"), Raw("0.25"), Raw("0.2"), Raw("0.05"),
        ]
        if self.chance(0.5):
            return self.pick(edges)
        return self.spell_float(self.r.uniform(0.0, 1.0) or 0.5)

    # -- strings ---------------------------------------------------------
    def ident(self):
        k = self.r.randrange(10)
        if k < 4:
            return self.pick(["evt_1", "evt_2", "ep_42", "e", "evt_9007199254740993"])
        if k == 4:
            return ""
        if k == 5:
            return self.pick(["é", "日本語", "\U0001F600", "a\"b\\c", "{}", "a:b", "tab\there", "nl\nx", "\u0000", "\u007f", "\u2028"])
        n = self.r.randrange(1, 40)
        alphabet = "abcdefghijklmnopqrstuvwxyz0123456789_-:{}"
        if self.chance(0.3):
            return "".join(chr(self.r.choice([self.r.randrange(0x20, 0x7f), self.r.randrange(0xa0, 0xd7ff), self.r.randrange(0x10000, 0x10ffff)])) for _ in range(n))
        return "".join(self.pick(alphabet) for _ in range(n))

    # -- policy pieces ---------------------------------------------------
    def backoff(self):
        if self.chance(0.35):
            return {"base_ms": 2000, "factor": 2.0, "cap_ms": 300000, "jitter": self.pick(["none", "full", "equal"])}
        jitter = self.pick(["none", "full", "equal"] * 8 + ["", "FULL", "Full", "random", "none "])
        base = self.u64([0, 1, 2, 100, 1000, 2000, 86_399_999, 86_400_000, 86_400_001], hi=90_000_000)
        cap = self.u64([0, 1, 2, 1000, 2000, 300_000, 86_399_999, 86_400_000, 86_400_001], hi=90_000_000)
        return {"base_ms": base, "factor": self.factor(), "cap_ms": cap, "jitter": jitter}

    def budget(self):
        if self.chance(0.3):
            return {"ratio": 0.1, "window_ms": 60000, "min_sample": 50, "sliding": True}
        return {
            "ratio": self.ratio(),
            "window_ms": self.u64([0, 1, 2, 1000, 60_000, 3_600_000, U53]),
            "min_sample": self.u64([0, 1, 2, 49, 50, 51, 100, 1000, U53]),
            "sliding": self.chance(0.6),
        }

    def policy(self):
        return {
            "backoff": self.backoff(),
            "window_ms": self.u64([0, 1, 1000, 60_000, 900_000, 3_600_000, 86_400_000, 2_591_999_999, 2_592_000_000, 2_592_000_001]),
            "hard_cap": self.u32([0, 1, 2, 13, 16, 99, 100, 101, U32]),
            "budget": self.budget(),
        }

    @staticmethod
    def val(x):
        return float(x) if isinstance(x, Raw) else x

    def state(self, policy, now, resume=False):
        max_edges = [0, 1, 2, 13, 16, 99, 100, 101, U32]
        max_attempts = self.u32(max_edges)
        m = int(self.val(max_attempts))
        attempt_edges = [0, 1, 2, max(0, m - 1), m, m + 1, U32] if m < U32 else [0, 1, U32 - 1, U32]
        attempt = self.u32([a for a in attempt_edges if a <= U32])
        window = int(self.val(policy["window_ms"]))
        nowv = int(self.val(now))
        first_edges = [nowv, max(0, nowv - window), max(0, nowv - window + 1), max(0, nowv - window - 1),
                       min(U53, nowv + 1), min(U53, nowv + 1000), 0, max(0, nowv - self.r.randrange(0, 200_000))]
        first = self.u64(first_edges)
        return {
            "event_id": self.ident(),
            "endpoint_id": self.ident(),
            "attempt": attempt,
            "max_attempts": max_attempts,
            "first_attempted_at_ms": first,
            "credentials_refreshed": self.chance(0.3),
        }

    def status(self):
        return self.pick([99, 100, 101, 199, 200, 201, 204, 299, 300, 301, 304, 399, 400, 401, 401, 403, 403, 404,
                          408, 409, 410, 410, 413, 422, 425, 429, 429, 431, 499, 500, 501, 502, 503, 503, 504, 505,
                          507, 511, 599, 600, 0, 1, 999, 65535] + ([65536, 70000, U32] if self.spell else []))

    def outcome(self, policy, state, now):
        if self.chance(0.2):
            return {"error_kind": self.pick(["connect_timeout", "read_timeout", "write_timeout", "pool_timeout",
                                             "connect_error", "remote_protocol_error", "dns_failure", "tls_error",
                                             "", "CONNECT_TIMEOUT", "connect-timeout", "é", "read_timeout "])}
        o = {"status": self.spell_int(self.status())}
        k = self.r.randrange(4)
        if k == 1:
            o["retry_after_ms"] = None
        elif k >= 2:
            window = int(self.val(policy["window_ms"]))
            elapsed = max(0, int(self.val(now)) - int(self.val(state["first_attempted_at_ms"])))
            room = max(0, window - elapsed)
            o["retry_after_ms"] = self.u64([0, 1, 1000, room, room + 1, max(0, room - 1), U53])
        return o

    def now(self):
        return self.u64([0, 1, 59_999, 60_000, 60_001, 1_700_000_000_000, 1_700_000_000_080, 1_700_000_059_999, U53])

    def counts(self, budget):
        ms = int(self.val(budget["min_sample"])) if budget["min_sample"] is not None else 50
        ratio = self.val(budget["ratio"])
        k = self.r.randrange(4)
        if k == 0:
            total = self.pick([0, 1, max(0, ms - 2), max(0, ms - 1), ms, ms + 1, ms + 2])
        elif k == 1 and isinstance(ratio, float) and 1e-9 < ratio <= 1:
            retries = self.r.randrange(0, 200)
            total = max(0, int((retries + 1) / ratio) - 1 + self.r.randrange(-2, 3))
            return {"total": self.spell_int(min(total, U53)), "retries": self.spell_int(retries)}
        elif k == 2:
            total = self.r.randrange(0, 10_000)
        else:
            total = self.r.randrange(0, U53 + 1) if self.chance(0.2) else self.r.randrange(0, 1_000_000)
        retries = self.pick([0, 1, total // 10, total // 10 + 1, max(0, total // 10 - 1), total, total + 1, self.r.randrange(0, total + 2)])
        return {"total": self.spell_int(min(total, U53)), "retries": self.spell_int(min(retries, U53))}

    def budget_counts(self, budget):
        return {"current": self.counts(budget), "previous": self.counts(budget)}

    # -- Retry-After ------------------------------------------------------
    DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    def imf(self):
        year = self.pick([0, 1, 4, 100, 400, 1600, 1900, 1969, 1970, 1994, 1999, 2000, 2024, 2025, 2026, 2100, 2400, 9999]) if self.chance(0.5) else self.r.randrange(0, 10000)
        month = self.r.randrange(1, 13)
        leap = (year % 4 == 0 and year % 100 != 0) or year % 400 == 0
        dim = [31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        if self.chance(0.2):
            month, day = 2, self.pick([28, 29, 30])
        else:
            day = self.pick([1, dim, dim + 1, 0, self.r.randrange(1, dim + 1), self.r.randrange(1, dim + 1)])
        hh = self.pick([0, 23, 24, self.r.randrange(24)])
        mm = self.pick([0, 59, 60, self.r.randrange(60)])
        ss = self.pick([0, 59, 60, 61, self.r.randrange(60)])
        dname = self.pick(self.DAYS + ["sun", "SUN", "Son"]) if self.chance(0.2) else self.pick(self.DAYS)
        mname = self.MONTHS[month - 1]
        if self.chance(0.1):
            mname = self.pick([mname.lower(), mname.upper(), "Foo"])
        tz = "GMT" if self.chance(0.9) else self.pick(["UTC", "gmt", "+0000", "GMT "])
        s = f"{dname}, {day:02d} {mname} {year:04d} {hh:02d}:{mm:02d}:{ss:02d} {tz}"
        if self.chance(0.08):
            s = self.pick([s.replace(", ", ",", 1), s.replace(" ", "  ", 1), s.replace(":", ".", 1), s[:-1], s + "Z"])
        return s

    def header(self):
        k = self.r.randrange(12)
        if k <= 2:
            n = self.r.randrange(1, 25) if self.chance(0.3) else self.r.randrange(1, 6)
            s = "".join(str(self.r.randrange(10)) for _ in range(n))
        elif k <= 5:
            s = self.imf()
        elif k == 6:
            s = self.pick(["", " ", "\t", "0", "00", "000120", "9007199254740", "9007199254740991",
                           "9007199254740992", "18446744073709551615", "18446744073709551616", "9" * 30,
                           "9" * 400, "+1", "-1", "-0", "1.5", "1.0", "1e3", "0x10", "١٢٣", "²", "１２", "٣",
                           "12a", "a12", "1 2", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
                           "Sun, 06 Nov 1994 08:49:37 GMT", "Sun, 6 Nov 1994 08:49:37 GMT",
                           "Sun, 06 Nov 94 08:49:37 GMT", "Sun, 06 Nov 1994 8:49:37 GMT", "now", "null", "\u0000"])
        elif k == 7:
            s = "".join(chr(self.r.randrange(0x20, 0x7f)) for _ in range(self.r.randrange(0, 40)))
        elif k == 8:
            s = "".join(chr(self.r.choice([self.r.randrange(0x0, 0x20), self.r.randrange(0xa0, 0x3000), self.r.randrange(0x10000, 0x10ffff), 0x30 + self.r.randrange(10)])) for _ in range(self.r.randrange(1, 12)))
        else:
            s = self.pick(["120", "0", "3600", self.imf(), str(self.r.randrange(1 << 40))])
        if self.chance(0.25):
            pad = lambda: "".join(self.pick([" ", "\t", " ", "\n", "\r", "\u00a0", "\u3000", "\u000b"]) for _ in range(self.r.randrange(1, 4)))
            s = (pad() if self.chance(0.7) else "") + s + (pad() if self.chance(0.7) else "")
        return s

    def header_now(self, header):
        # Near the date's own instant, so the sign of the delay is exercised.
        try:
            import email.utils
            t = email.utils.parsedate_to_datetime(header.strip(" \t"))
            base = int(t.timestamp() * 1000)
        except Exception:
            base = 1_700_000_000_000
        base = max(0, min(U53, base))
        return self.u64([base, max(0, base - 1), min(U53, base + 1), max(0, base - 1000), min(U53, base + 1000),
                         0, 1_700_000_000_000, U53])

    # -- cases -----------------------------------------------------------
    def case(self, op):
        if op == "plan":
            p = self.policy()
            return {"backoff": p["backoff"], "window_ms": p["window_ms"], "hard_cap": p["hard_cap"]}
        if op == "delay":
            return {"backoff": self.backoff(), "event_id": self.ident(),
                    "retry_index": self.u32([0, 1, 2, 15, 98, 99, 100, 101, U32 - 1, U32])}
        if op == "classify_status":
            return {"status": self.spell_int(self.status())}
        if op == "classify_error":
            return {"error_kind": self.pick(["connect_timeout", "read_timeout", "write_timeout", "pool_timeout",
                                             "connect_error", "remote_protocol_error", "", "dns", "Connect_Timeout",
                                             "connect_timeout\u0000", self.ident()])}
        if op == "budget":
            b = self.budget()
            c = self.budget_counts(b)
            return {"budget": b, "now_ms": self.now(), "current": c["current"], "previous": c["previous"]}
        if op == "retry_after":
            h = self.header()
            return {"header": h, "now_ms": self.header_now(h)}
        p = self.policy()
        now = self.now()
        s = self.state(p, now, resume=(op == "resume"))
        if op == "resume":
            return {"policy": p, "state": s, "now_ms": now}
        o = self.outcome(p, s, now)
        inp = {"policy": p, "state": s, "outcome": o, "now_ms": now}
        if op == "decide":
            inp["budget_counts"] = None if self.chance(0.2) else self.budget_counts(p["budget"])
        elif op == "settle":
            inp["reply"] = {"unavailable": True} if self.chance(0.2) else {"reserved": self.chance(0.5), "counts": self.budget_counts(p["budget"])}
        return inp


OPS = ["plan", "delay", "classify_status", "classify_error", "budget", "decide", "evaluate", "settle", "resume", "retry_after"]
WEIGHTS = [6, 8, 3, 2, 8, 14, 14, 18, 10, 17]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cases", type=int, default=10000)
    ap.add_argument("--start", type=int, default=0, help="index of the first case (to regenerate one)")
    ap.add_argument("--spell", action="store_true",
                    help="also spell integers as 1000.0 / 1e3 / -0 and send statuses above 65535 to the step ops "
                         "(hosts disagree on these today: see docs/reliability.md)")
    ap.add_argument("--health-share", type=float, default=0.25, help="the share of format-3 cases (gen_health.py)")
    ap.add_argument("--loose3", action="store_true", help="format-3 values the runners disagree on today (gen_health.py)")
    a = ap.parse_args()
    out = sys.stdout
    for i in range(a.start, a.start + a.cases):
        g = G(f"{a.seed}/{i}", a.spell)  # one generator a case: any case regenerates alone
        if g.chance(a.health_share):  # `settle` is an op of both formats: "format" tells them apart
            fmt, (op, inp) = 3, gen_health.draw(g, a.loose3)
        else:
            fmt, op = 2, g.r.choices(OPS, WEIGHTS)[0]
            inp = g.case(op)
        out.write('{"format": %d, "name": %s, "op": "%s", "input": %s}\n' % (fmt, json.dumps(f"{op}/{'s' if a.spell else ''}{'l' if a.loose3 else ''}{a.seed}/{i}"), op, dump(inp, g.r)))


if __name__ == "__main__":
    main()
