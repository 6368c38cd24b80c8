"""The tracked-files check fails on what it must and passes the rest, shown
on throwaway git repositories (run by tests/repo/tracked-files)."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

import tracked_files


def pe_header() -> bytes:
    head = bytearray(0x80)
    head[0:2] = b"MZ"
    head[0x3C:0x40] = (0x40).to_bytes(4, "little")
    head[0x40:0x44] = b"PE\x00\x00"
    return bytes(head)


class ThrowawayRepo:
    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="tracked-files-"))
        subprocess.run(["git", "init", "-q", str(self.dir)], check=True)

    def add(self, path: str, data: bytes) -> None:
        f = self.dir / path
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_bytes(data)
        subprocess.run(["git", "-C", str(self.dir), "add", "--", path], check=True)

    def refused(self) -> list[str]:
        return [line.split(":", 1)[0] for line in tracked_files.problems(self.dir)[0]]

    def remove(self) -> None:
        shutil.rmtree(self.dir)


class TrackedFilesCheck(unittest.TestCase):
    def setUp(self) -> None:
        self.repo = ThrowawayRepo()
        self.addCleanup(self.repo.remove)

    def test_a_tracked_elf_binary_is_refused(self) -> None:
        elf = Path(shutil.which("true") or "/bin/true").read_bytes()
        self.repo.add("host-examples/go/cmd/replica/replica", elf)
        self.assertEqual(self.repo.refused(), ["host-examples/go/cmd/replica/replica"])

    def test_mach_o_and_pe_executables_are_refused_whatever_their_names(self) -> None:
        self.repo.add("a.txt", b"\xcf\xfa\xed\xfe" + bytes(60))
        self.repo.add("fat.dat", b"\xca\xfe\xba\xbe\x00\x00\x00\x02" + bytes(56))
        self.repo.add("tool.exe", pe_header())
        self.assertEqual(sorted(self.repo.refused()), ["a.txt", "fat.dat", "tool.exe"])

    def test_a_file_over_one_megabyte_is_refused_unless_allow_listed(self) -> None:
        big = b"x" * (tracked_files.LIMIT_BYTES + 1)
        self.repo.add("docs/big.json", big)
        self.repo.add("tests/vectors/big.json", big)
        self.repo.add("host-examples/node/lib/retry_policy.wasm", big)
        self.assertEqual(self.repo.refused(), ["docs/big.json"])

    def test_an_allow_listed_path_is_still_refused_when_it_is_an_executable(self) -> None:
        elf = Path(shutil.which("true") or "/bin/true").read_bytes()
        self.repo.add("tests/vectors/sneaky.json", elf)
        self.assertEqual(self.repo.refused(), ["tests/vectors/sneaky.json"])

    def test_scripts_sources_wasm_and_files_at_the_limit_pass(self) -> None:
        self.repo.add("scripts/setup", b"#!/usr/bin/env bash\necho hi\n")
        self.repo.add("a.wasm", b"\x00asm\x01\x00\x00\x00")
        self.repo.add("class.dat", b"\xca\xfe\xba\xbe\x00\x00\x00\x41" + bytes(8))  # a Java class file
        self.repo.add("MZ.txt", b"MZ is not a PE without its PE header" + bytes(100))
        self.repo.add("exact.txt", b"y" * tracked_files.LIMIT_BYTES)
        self.assertEqual(self.repo.refused(), [])

    def test_the_index_is_what_is_checked_so_an_untracked_binary_passes(self) -> None:
        elf = Path(shutil.which("true") or "/bin/true").read_bytes()
        self.repo.add("replica", elf)
        subprocess.run(["git", "-C", str(self.repo.dir), "rm", "-q", "--cached", "replica"], check=True)
        self.assertTrue((self.repo.dir / "replica").exists())
        self.assertEqual(self.repo.refused(), [])


if __name__ == "__main__":
    unittest.main()
