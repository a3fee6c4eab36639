"""The Python relay's decoders where they go beyond the Node relay's behaviour or keep their own
fast paths: a record torn mid-write then followed by others, a header claiming an absurd length,
the vectorised decode against record-by-record decoding, the column-wise halving of an envelope
against the bucket-by-bucket fold, and pickles built to explode."""

import io
import math
import pickle
import random
import struct
import time
import unittest
from copy import deepcopy

from agentrl_relay.envelope import EnvelopeBuilder
from agentrl_relay.fastscan import ChunkDecoder
from agentrl_relay.pickles import (
    PickleError,
    RowDecodeError,
    bounded_json,
    decode_experience_bytes,
    unpickle,
)
from agentrl_relay.points import PointCollector
from agentrl_relay.tfrecord import crc32c, frame_record, mask_crc

F64 = struct.Struct("<d")


def varint(n: int) -> bytes:
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def event(step: int, tag: str, value: float, wall: float) -> bytes:
    """A tensorboardX-shaped Event with one simple_value."""
    t = tag.encode()
    val = b"\x0a" + varint(len(t)) + t + b"\x15" + struct.pack("<f", value)
    summary = b"\x0a" + varint(len(val)) + val
    return b"\x09" + F64.pack(wall) + (b"\x10" + varint(step) if step else b"") + b"\x2a" + varint(len(summary)) + summary


def stream(steps, tags=("a/x", "b/yy", "c/zzz")) -> bytes:
    return b"".join(frame_record(event(s, t, s * 0.5 + i, 1.7e9 + s + i * 1e-3)) for s in steps for i, t in enumerate(tags))


def decode(data: bytes, vectorised: bool = True):
    sink = PointCollector()
    stats = {"records": 0, "crc": 0, "bad_headers": 0, "oversized": 0, "decode": 0}
    used = ChunkDecoder(vectorised).decode(data, sink, stats)
    return [(tag, list(s), list(w), list(v)) for tag, s, w, v in sink.series()], used, stats


class RecordTest(unittest.TestCase):
    def test_a_record_torn_mid_write_then_followed_by_others_loses_only_itself(self):
        whole = stream(range(1, 4))
        torn = frame_record(event(99, "a/x", 1.0, 1.7e9))[:30]  # header and part of the data
        points, used, stats = decode(torn + whole)
        self.assertEqual(used, len(torn) + len(whole))
        self.assertEqual(sum(len(p[1]) for p in points), 9, "every record after the torn one")
        self.assertEqual(stats["crc"], 1)

    def test_a_header_claiming_hundreds_of_mb_does_not_hold_up_what_follows(self):
        head = struct.pack("<Q", 200 * 1024 * 1024)
        bogus = head + struct.pack("<I", mask_crc(crc32c(head))) + b"\0" * 20
        points, used, stats = decode(bogus + stream(range(1, 3)))
        self.assertEqual(sum(len(p[1]) for p in points), 6)
        self.assertEqual((stats["oversized"], stats["bad_headers"]), (1, 0), "a valid header over the limit is told apart from damage")
        self.assertEqual(used, len(bogus) + len(stream(range(1, 3))))

    def test_the_vectorised_decode_equals_record_by_record_decoding(self):
        rnd = random.Random(3)
        good = stream(range(100, 400)) + stream(range(16370, 16400))
        for case in range(60):
            data = bytearray(good)
            if case % 3 == 1:
                for _ in range(rnd.randint(1, 4)):
                    data[rnd.randrange(len(data))] ^= 1 << rnd.randrange(8)
            elif case % 3 == 2:
                data = data[: rnd.randrange(len(data))]
            a = decode(bytes(data), True)
            b = decode(bytes(data), False)
            a[2].pop("stretched", None)
            self.assertEqual(a, b, f"case {case}")

    def test_chunk_by_chunk_equals_whole(self):
        data = stream(range(1, 2000))
        whole = decode(data)[0]
        dec = ChunkDecoder()
        sink = PointCollector()
        stats = {"records": 0, "crc": 0, "bad_headers": 0, "oversized": 0, "decode": 0}
        at = 0
        rnd = random.Random(9)
        while at < len(data):
            at += dec.decode(data[at : at + rnd.randint(100, 20000)], sink, stats)
        self.assertEqual([(t, list(s), list(w), list(v)) for t, s, w, v in sink.series()], whole)
        self.assertGreater(stats.get("stretched", 0), 5000, "most records were decoded a cycle at a time")


class EnvelopeTest(unittest.TestCase):
    def test_halving_column_wise_equals_the_bucket_by_bucket_fold(self):
        rnd = random.Random(5)
        checked = 0
        original = EnvelopeBuilder._halve

        def compared(self, lo):
            nonlocal checked
            ref = deepcopy(self)
            EnvelopeBuilder._relayout(ref, 1, lo)
            original(self, lo)
            checked += 1
            assert repr(ref.cols) == repr(self.cols) and (ref.lo, ref.width) == (self.lo, self.width)

        EnvelopeBuilder._halve = compared
        try:
            for _ in range(800):
                b = EnvelopeBuilder(rnd.choice([2, 3, 4, 7, 8, 33]), 1)
                s = rnd.randint(-50, 50)
                for i in range(rnd.randint(0, 300)):
                    s += rnd.choice([0, 1, 1, 2, -3, 5, -1])
                    b.add(s, float(i), rnd.choice([0.0, -0.0, 1.5, -2.0, math.nan, math.inf, -math.inf, rnd.random()]))
        finally:
            EnvelopeBuilder._halve = original
        self.assertGreater(checked, 1000)


def shared_bomb(levels: int, fanout: int) -> bytes:
    """A pickle whose every level is a list referring to the level below `fanout` times."""
    out = io.BytesIO()
    out.write(b"\x80\x04]")  # PROTO 4, EMPTY_LIST
    out.write(b"\x94")  # MEMOIZE as 0
    for level in range(1, levels + 1):
        out.write(b"(")  # MARK
        for _ in range(fanout):
            out.write(b"h" + bytes([level - 1]))  # BINGET level-1
        out.write(b"l\x94")  # LIST, MEMOIZE as level
    out.write(b".")
    return out.getvalue()


class Exp:
    """A class of the writer's (a legacy Experience): the relay never imports it."""

    def __init__(self):
        self.reward = 1.5
        self.metrics = {"accuracy": 1.0}


class PickleTest(unittest.TestCase):
    def test_shared_references_cannot_expand_without_bound(self):
        data = b"TRXP\x01" + struct.pack("<QQ", 0, 0)
        bomb = shared_bomb(40, 8)  # 8^40 nodes if expanded
        self.assertLess(len(bomb), 2000)
        t0 = time.monotonic()
        value = unpickle(bomb)
        with self.assertRaisesRegex(RowDecodeError, "expands to more than 200000 values"):
            bounded_json(value)
        self.assertLess(time.monotonic() - t0, 10)
        with self.assertRaises(ValueError):
            decode_experience_bytes(data + b"x")  # metadata length 0: not a pickle

    def test_no_code_runs_and_classes_become_their_fields(self):
        payload = pickle.dumps([Exp()], protocol=2)
        out = decode_experience_bytes(payload)
        self.assertEqual(out, {"reward": 1.5, "metrics": {"accuracy": 1.0}})
        evil = b"cos\nsystem\n(S'echo pwned > /tmp/agentrl-pwned'\ntR."
        self.assertEqual(bounded_json(unpickle(evil)), {})

    def test_pickled_integers_of_every_width_and_mutated_ones_give_a_value_or_a_clear_error(self):
        # As the Node relay: a binary integer over 1 KiB is not kept, a text one past 4300 digits refused.
        self.assertEqual(bounded_json(unpickle(pickle.dumps([-256, 1234567890123456789012345], protocol=4))), [-256, "1234567890123456789012345"])
        huge = pickle.dumps({"n": 1 << (8 * 1024 * 1024 - 9)}, protocol=4)
        self.assertEqual(bounded_json(unpickle(huge)), {"n": "<int of more than 1024 bytes>"})
        with self.assertRaises(PickleError):
            unpickle(b"L" + b"9" * 1_000_000 + b"L\n.")
        rnd = random.Random(20261207)
        seeds = [pickle.dumps([(1 << (8 * n)) - 3 * n], protocol=p) for n in (0, 1, 8, 255, 1023, 1024, 4096) for p in (0, 2, 4) if p or n < 1024]
        for i in range(2000):
            b = bytearray(seeds[i % len(seeds)])
            for _ in range(1 + rnd.randrange(4)):
                b[rnd.randrange(len(b))] = rnd.randrange(256)
            if rnd.random() < 0.2:
                b = b[: rnd.randrange(len(b))]
            try:
                bounded_json(unpickle(bytes(b)))
            except (PickleError, RowDecodeError) as e:
                self.assertNotIn("Traceback", str(e))


if __name__ == "__main__":
    unittest.main()
