#!/usr/bin/env python3
"""Drop the top-level `component-name` custom section from a component.

Names only help debuggers; every host ships this file, so it goes. Custom
sections carry no semantics, so removing one leaves the component valid.
Usage: strip-component-names.py IN OUT
"""
import sys


def leb(b, i):
    r = s = 0
    while True:
        x = b[i]
        i += 1
        r |= (x & 0x7F) << s
        s += 7
        if x < 0x80:
            return r, i


def main(src, dst):
    data = open(src, "rb").read()
    if data[:4] != b"\0asm" or data[4:8] != b"\x0d\x00\x01\x00":
        sys.exit(f"{src}: not a component")
    out, i = bytearray(data[:8]), 8
    while i < len(data):
        start, sid = i, data[i]
        size, body = leb(data, i + 1)
        i = body + size
        if sid == 0:
            n, j = leb(data, body)
            if data[j : j + n] == b"component-name":
                continue
        out += data[start:i]
    open(dst, "wb").write(out)


if __name__ == "__main__":
    main(*sys.argv[1:3])
