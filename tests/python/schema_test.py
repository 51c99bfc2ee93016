#!/usr/bin/python3
"""The schedule schema: every shipped schedule validates, every field has a
description (editor hover help), and the schema refuses what the parser refuses
at the JSON level (unknown fields, wrong enums). Needs Debian's python3-jsonschema
(tools/install-deps.sh installs it); a missing module fails the test."""
import glob
import json
import os
import re
import sys
import unittest

import jsonschema

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCHEMA_PATH = os.path.join(ROOT, "schedules", "schedule.schema.json")


def fields_without_description(node, path="$"):
    """Every property and definition must say what it is."""
    missing = []
    if isinstance(node, dict):
        for name, sub in node.get("properties", {}).items():
            if "$ref" not in sub and "description" not in sub:
                missing.append(f"{path}.properties.{name}")
            missing += fields_without_description(sub, f"{path}.properties.{name}")
        for key in ("$defs", "oneOf", "items"):
            if key in node:
                sub = node[key]
                items = sub.items() if isinstance(sub, dict) else enumerate(sub if isinstance(sub, list) else [sub])
                for name, child in items:
                    missing += fields_without_description(child, f"{path}.{key}.{name}")
    return missing


def load_schema(path):
    """The schema at `path`, checked as a JSON Schema 2020-12, and its validator."""
    with open(path) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    return schema, jsonschema.Draft202012Validator(schema)


def schema_errors(validator, paths):
    """Every error of every file, as "file: message", in path order within a file."""
    errors = []
    for path in paths:
        with open(path) as f:
            doc = json.load(f)
        found = sorted(validator.iter_errors(doc), key=lambda e: e.path)
        errors += [f"{os.path.basename(path)}: {e.message}" for e in found]
    return errors


class SchemaTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.schema, cls.validator = load_schema(SCHEMA_PATH)

    def shipped(self):
        files = sorted(glob.glob(os.path.join(ROOT, "schedules", "*.json")))
        files = [f for f in files if not f.endswith("schedule.schema.json")]
        self.assertGreaterEqual(len(files), 19)
        return files

    def test_every_shipped_schedule_validates(self):
        self.assertEqual([], schema_errors(self.validator, self.shipped()))

    def test_every_field_has_a_description(self):
        self.assertEqual([], fields_without_description(self.schema))

    def test_the_schema_refuses_what_the_parser_refuses(self):
        with open(os.path.join(ROOT, "schedules", "baseline_256x256x64_w8.json")) as f:
            good = json.load(f)
        for change in (lambda d: d.update(unknown=1), lambda d: d["types"].update(a="int4"),
                       lambda d: d.update(waves=6), lambda d: d["ops"][0].update(op="load"),
                       lambda d: d.update(epilogue={"activation": "softmax"}), lambda d: d.update(num_stages=2)):
            bad = json.loads(json.dumps(good))
            change(bad)
            self.assertFalse(self.validator.is_valid(bad), bad)



class AttentionSchemaTest(unittest.TestCase):
    """schedules/attention/attention.schema.json: the shipped attention schedules and
    fixtures validate, every field is described, and the op kinds are the parser's
    rows (kAttentionOpKinds, kKvOperands in src/vocabulary/rows.hpp)."""

    DIR = os.path.join(ROOT, "schedules", "attention")

    @classmethod
    def setUpClass(cls):
        cls.schema, cls.validator = load_schema(os.path.join(cls.DIR, "attention.schema.json"))

    def files(self):
        files = sorted(glob.glob(os.path.join(self.DIR, "*.json")) + glob.glob(os.path.join(self.DIR, "fixtures", "*.json")))
        files = [f for f in files if not f.endswith("attention.schema.json")]
        self.assertGreaterEqual(len(files), 8)
        return files

    def test_every_shipped_attention_schedule_validates(self):
        self.assertEqual([], schema_errors(self.validator, self.files()))

    def test_every_field_has_a_description(self):
        self.assertEqual([], fields_without_description(self.schema))

    def test_the_enums_are_the_parsers_rows(self):
        with open(os.path.join(ROOT, "src", "vocabulary", "rows.hpp")) as f:
            rows = f.read()
        def names(table):
            body = re.search(table + r"\[\] = \{(.*?)\};", rows, re.S).group(1)
            return re.findall(r'"([a-z_0-9]+)"', body)
        ops = self.schema["$defs"]["op"]
        self.assertEqual(names("kAttentionOpKinds"), ops["properties"]["op"]["enum"])
        self.assertEqual(names("kAttentionOpKinds"), [v["properties"]["op"]["const"] for v in ops["oneOf"]])
        operands = {tuple(v["properties"]["operand"]["enum"]) for v in ops["oneOf"] if "operand" in v["properties"]}
        self.assertEqual({tuple(names("kKvOperands"))}, operands)

    def test_the_schema_refuses_what_the_parser_refuses(self):
        with open(os.path.join(self.DIR, "attn_fwd_d128_explicit.json")) as f:
            good = json.load(f)
        self.assertTrue(self.validator.is_valid(good))
        for change in (lambda d: d.update(unknown=1), lambda d: d.pop("kind"), lambda d: d.update(waves=6),
                       lambda d: d.update(dim=96), lambda d: d["ops"][0].update(op="mfma"),
                       lambda d: d["ops"][0].update(operand="a"), lambda d: d["ops"][9].update(part=0),
                       lambda d: d.update(num_stages=2), lambda d: d.update(lds_buffers=5),
                       lambda d: (d.pop("ops"), d.update(num_stages=3))):
            bad = json.loads(json.dumps(good))
            change(bad)
            self.assertFalse(self.validator.is_valid(bad), bad)

    def test_the_gemm_schema_refuses_an_attention_schedule(self):
        with open(SCHEMA_PATH) as f:
            gemm = jsonschema.Draft202012Validator(json.load(f))
        with open(os.path.join(self.DIR, "attn_fwd_d128.json")) as f:
            self.assertFalse(gemm.is_valid(json.load(f)))


class SpaceSchemaTest(unittest.TestCase):
    """cdna4-tune's search spaces (schedules/spaces/): the shipped ones validate and load."""

    @classmethod
    def setUpClass(cls):
        with open(os.path.join(ROOT, "schedules", "spaces", "space.schema.json")) as f:
            cls.schema = json.load(f)
        jsonschema.Draft202012Validator.check_schema(cls.schema)
        cls.validator = jsonschema.Draft202012Validator(cls.schema)

    def test_every_shipped_space_validates(self):
        files = [f for f in sorted(glob.glob(os.path.join(ROOT, "schedules", "spaces", "*.json")))
                 if not f.endswith("space.schema.json")]
        self.assertGreaterEqual(len(files), 2)
        for path in files:
            with open(path) as f:
                doc = json.load(f)
            errors = [e.message for e in self.validator.iter_errors(doc)]
            self.assertEqual([], errors, path)
            base = os.path.join(os.path.dirname(path), doc["base"])
            self.assertTrue(os.path.exists(base), base)

    def test_every_field_has_a_description(self):
        self.assertEqual([], fields_without_description(self.schema))

    def test_the_schema_refuses_unknown_knobs_and_fields(self):
        good = {"name": "x", "base": "../baseline_256x256x64_w8.json", "knobs": {"waits": ["keep"]}}
        self.assertEqual([], list(self.validator.iter_errors(good)))
        self.assertNotEqual([], list(self.validator.iter_errors(dict(good, knobs={"tiles": [1]}))))
        self.assertNotEqual([], list(self.validator.iter_errors(dict(good, knbos={}))))
        self.assertNotEqual([], list(self.validator.iter_errors(dict(good, knobs={"waits": ["sometimes"]}))))

if __name__ == "__main__":
    sys.exit(0 if unittest.main(exit=False, verbosity=2).result.wasSuccessful() else 1)
