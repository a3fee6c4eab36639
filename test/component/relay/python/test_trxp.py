"""Trinity's TRXP row layout (agentrl_relay/trxp.py), the one Python reader of it: the relay
bundles it and the debug runner's agentrl_runner/trxp.py is the same file. Rows are built as
Trinity's Experience.serialize_many writes them: header, pickled metadata, safetensors."""

import json
import os
import pickle
import struct
import unittest

from agentrl_relay.trxp import (
    TRXP_HEADER,
    TrxpError,
    trxp_first_item,
    trxp_layout,
    trxp_metadata,
)

REPO = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))


def safetensors(tensors: dict) -> bytes:
    """A safetensors blob of little-endian float32 tensors: u64 header length, JSON header, data."""
    header, data = {}, b""
    for name, values in tensors.items():
        raw = struct.pack(f"<{len(values)}f", *values)
        header[name] = {
            "dtype": "F32",
            "shape": [len(values)],
            "data_offsets": [len(data), len(data) + len(raw)],
        }
        data += raw
    text = json.dumps(header).encode()
    return struct.pack("<Q", len(text)) + text + data


def row(meta: object, tensors: bytes = b"") -> bytes:
    body = pickle.dumps(meta)
    return (
        b"TRXP"
        + bytes([1])
        + struct.pack("<QQ", len(body), len(tensors))
        + body
        + tensors
    )


def key(value: object, name: str) -> object:
    return value.get(name) if isinstance(value, dict) else None


class LayoutTest(unittest.TestCase):
    def test_the_header_gives_where_the_metadata_and_the_tensors_are(self):
        tensors = safetensors({"0:advantages": [0.5, -1.0]})
        data = row(
            {"version": 1, "num_items": 1, "items": [{"response_text": "42"}]}, tensors
        )
        layout = trxp_layout(data[:TRXP_HEADER])
        self.assertIsNotNone(layout)
        self.assertEqual(TRXP_HEADER, 21)
        self.assertEqual(layout.tensor_len, len(tensors))
        self.assertEqual(layout.tensors_at + layout.tensor_len, len(data))
        self.assertEqual(data[layout.tensors_at :], tensors)
        meta = pickle.loads(trxp_metadata(data, 1 << 20))
        self.assertEqual(trxp_first_item(meta, key), {"response_text": "42"})

    def test_bytes_that_are_no_trxp_row_have_no_layout(self):
        self.assertIsNone(
            trxp_layout(pickle.dumps({"items": []}))
        )  # an older Trinity's plain pickle
        self.assertIsNone(
            trxp_layout(b"TRXP\x01" + b"\x00" * 8)
        )  # shorter than the header
        with self.assertRaisesRegex(TrxpError, "not a TRXP experience row"):
            trxp_metadata(pickle.dumps({"items": []}), 1 << 20)

    def test_a_row_cut_short_or_over_the_limit_is_refused_with_its_sizes(self):
        data = row({"items": [{"a": 1}]})
        meta_len = len(data) - TRXP_HEADER
        with self.assertRaisesRegex(
            TrxpError,
            rf"^experience bytes truncated \({len(data) - 3} bytes, metadata {meta_len}\)$",
        ):
            trxp_metadata(data[:-3], 1 << 20)
        with self.assertRaisesRegex(
            TrxpError,
            rf"^experience metadata of {meta_len} bytes is over the 8-byte limit$",
        ):
            trxp_metadata(data, 8)
        self.assertEqual(len(trxp_metadata(data, meta_len)), meta_len)

    def test_item_zero_or_none(self):
        self.assertEqual(
            trxp_first_item({"items": [{"a": 1}, {"a": 2}]}, key), {"a": 1}
        )
        self.assertIsNone(trxp_first_item({"items": []}, key))
        self.assertIsNone(trxp_first_item({"version": 1}, key))
        self.assertIsNone(trxp_first_item([1, 2], key))

    def test_the_debug_runner_reads_rows_with_this_very_file(self):
        runner = os.path.join(
            REPO, "src", "debug", "runner", "agentrl_runner", "trxp.py"
        )
        relay = os.path.join(REPO, "src", "relay", "python", "agentrl_relay", "trxp.py")
        self.assertTrue(
            os.path.samefile(runner, relay),
            "agentrl_runner/trxp.py is agentrl_relay/trxp.py",
        )


if __name__ == "__main__":
    unittest.main()
