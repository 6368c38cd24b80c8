"""scripts/docs-facts on a small tree of its own: a stale number fails, --write fixes it.

Run: python3 -m unittest discover -s tests/docs-facts
"""
import json
import pathlib
import shutil
import subprocess
import tempfile
import unittest

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "scripts" / "docs-facts"

SOURCES = {
    "wit/retry-policy.wit": "/// docs\npackage webhook:retry-policy@0.3.0;\n",
    "wasm/component/src/lib.rs": "pub const ABI_VERSION: u32 = 3;\n",
    "host-examples/rust/src/artifact/mod.rs": "pub const ABI_VERSION: u32 = 3;\n",
    "host-examples/node/lib/artifact/load.cjs": "const ABI_VERSION = 3;\n",
    "host-examples/python/src/webhook_retry_policy/artifact.py": "ABI_VERSION = 3\n",
    "host-examples/go/retrypolicy/engine.go": "const ABIVersion = 3\n",
    "host-examples/rust/Cargo.toml": 'version = "0.2.0"\n',
    "host-examples/rust/dispatcher/Cargo.toml": 'version = "0.2.0"\n',
    "host-examples/node/package.json": '{\n  "version": "0.2.0"\n}\n',
    "host-examples/python/pyproject.toml": 'version = "0.2.0"\n',
    "wasm/npm/Cargo.toml": 'version = "0.2.0"\n',
    "host-examples/go/internal/driver/args.go": "  --store FILE  journal (docs/journal.md, format 2:\n",
    "host-examples/rust/artifact/retry_policy.wasm": b"\0asm" + bytes(1020),
    "policy-core/src/journal/record.rs": '        ("v", 2u64.into()),\n        ("type", "header".into()),\n',
}
VECTORS = {"a.json": (1, 2), "b.json": (2, 1), "format3-c.json": ("webhook-retry-policy/health-vectors 1", 4)}
README = """# A tree

runs all <!-- fact:vector-count -->7<!-- /fact --> vectors (<!-- fact:vector-count-format3 -->4<!-- /fact --> of format 3);
the WIT package is <!-- fact:wit-package -->`webhook:retry-policy@0.3.0`<!-- /fact -->, the artifact
<!-- fact:artifact-bytes -->1,024<!-- /fact --> bytes, one version <!-- fact:version -->0.2.0<!-- /fact -->.

```sh
./conformance tests/vectors   # -> go: 7 passed, 0 failed (abi 3)
```
"""


class DocsFactsOnASmallTree(unittest.TestCase):
    def setUp(self):
        self.root = pathlib.Path(tempfile.mkdtemp(prefix="docs-facts-"))
        self.addCleanup(shutil.rmtree, self.root)
        (self.root / "scripts").mkdir()
        shutil.copy(SCRIPT, self.root / "scripts" / "docs-facts")
        for path, text in SOURCES.items():
            self.put(path, text)
        for name, (fmt, cases) in VECTORS.items():
            self.put(f"tests/vectors/{name}", json.dumps({"format": fmt, "cases": [{}] * cases}))
        self.put("README.md", README)

    def put(self, path, content):
        p = self.root / path
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            p.write_bytes(content)
        else:
            p.write_text(content)

    def edit(self, path, old, new):
        p = self.root / path
        text = p.read_text()
        self.assertIn(old, text)
        p.write_text(text.replace(old, new, 1))

    def run_tool(self, *args):
        return subprocess.run(["python3", str(self.root / "scripts" / "docs-facts"), *args],
                              capture_output=True, text=True, timeout=60)

    def test_a_tree_whose_docs_hold_its_numbers_passes(self):
        r = self.run_tool("--check")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("all current", r.stdout)

    def test_a_stale_span_fails_naming_the_file_the_line_and_both_values(self):
        self.edit("README.md", "vector-count -->7<", "vector-count -->945<")
        r = self.run_tool("--check")
        self.assertEqual(r.returncode, 1)
        self.assertIn("README.md:3: says vector-count = '945'; the tree says '7'", r.stderr)

    def test_a_new_vector_file_makes_the_old_count_stale(self):
        self.put("tests/vectors/d.json", json.dumps({"format": 2, "cases": [{}, {}]}))
        r = self.run_tool()
        self.assertEqual(r.returncode, 1)
        self.assertIn("says vector-count = '7'; the tree says '9'", r.stderr)
        self.assertIn("README.md:8: says vector-count = '7'; the tree says '9'", r.stderr)

    def test_write_rewrites_spans_and_mentions_and_the_check_then_passes(self):
        self.put("host-examples/rust/artifact/retry_policy.wasm", bytes(166144))
        self.edit("wasm/component/src/lib.rs", "= 3", "= 4")
        for path in ("host-examples/rust/src/artifact/mod.rs", "host-examples/node/lib/artifact/load.cjs",
                     "host-examples/python/src/webhook_retry_policy/artifact.py",
                     "host-examples/go/retrypolicy/engine.go"):
            self.edit(path, "= 3", "= 4")
        self.assertEqual(self.run_tool("--write").returncode, 0)
        text = (self.root / "README.md").read_text()
        self.assertIn("<!-- fact:artifact-bytes -->166,144<!-- /fact -->", text)
        self.assertIn("(abi 4)", text)
        self.assertEqual(self.run_tool("--check").returncode, 0)

    def test_a_value_held_as_code_keeps_its_backticks(self):
        self.edit("wit/retry-policy.wit", "@0.3.0", "@0.4.0")
        self.assertEqual(self.run_tool("--write").returncode, 0)
        self.assertIn("<!-- fact:wit-package -->`webhook:retry-policy@0.4.0`<!-- /fact -->",
                      (self.root / "README.md").read_text())

    def test_packages_at_different_versions_fail_naming_each(self):
        self.edit("host-examples/rust/Cargo.toml", "0.2.0", "0.1.0")
        r = self.run_tool()
        self.assertEqual(r.returncode, 1)
        self.assertIn("host-examples/rust/Cargo.toml says 0.1.0", r.stderr)
        self.assertIn("host-examples/node/package.json says 0.2.0", r.stderr)

    def test_a_go_help_string_with_an_old_journal_format_fails(self):
        self.edit("host-examples/go/internal/driver/args.go", "format 2", "format 1")
        r = self.run_tool()
        self.assertEqual(r.returncode, 1)
        self.assertIn("host-examples/go/internal/driver/args.go:1: says journal-format-written = '1'; the tree says '2'", r.stderr)

    def test_an_unknown_fact_and_an_unpaired_marker_fail(self):
        self.put("docs/x.md", "a <!-- fact:no-such-fact -->1<!-- /fact --> b <!-- fact:version -->0.2.0\n")
        r = self.run_tool()
        self.assertEqual(r.returncode, 1)
        self.assertIn("unknown fact `no-such-fact`", r.stderr)
        self.assertIn("an unpaired or malformed marker", r.stderr)

    def test_a_fact_whose_source_is_gone_fails_naming_the_source(self):
        (self.root / "wit/retry-policy.wit").unlink()
        r = self.run_tool()
        self.assertEqual(r.returncode, 1)
        self.assertIn("wit/retry-policy.wit: cannot read", r.stderr)


if __name__ == "__main__":
    unittest.main()
