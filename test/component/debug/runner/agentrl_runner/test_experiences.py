"""Trinity's experience rows in a `trinity debug` experiences.db (agentrl_runner/experiences.py)."""

from __future__ import annotations

import pickle
import sqlite3
import struct
from pathlib import Path

import pytest

from agentrl_runner.experiences import decode_metadata, read_experiences
from agentrl_runner.trxp import TrxpError


def trxp(meta: object, tensors: bytes = b"") -> bytes:
    body = pickle.dumps(meta)
    return b"TRXP" + bytes([1]) + struct.pack("<QQ", len(body), len(tensors)) + body + tensors


class Experience:
    """A class in a pickle: what an older Trinity wrote (a pickled Experience object)."""


def test_a_row_decodes_to_its_first_items_metadata():
    """A TRXP row gives its first item's metadata; the tensors after it are not read."""
    item = {"response_text": "It is sunny.", "metrics": {"accuracy": 1.0}}
    assert decode_metadata(trxp({"version": 1, "num_items": 1, "items": [item]}, b"\x00" * 64)) == item


def test_bad_rows_are_refused_with_a_reason():
    """A truncated row, a row that is no TRXP, and a pickle naming a class are refused, never run."""
    whole = trxp({"items": [{"a": 1}]})
    with pytest.raises(TrxpError, match="truncated"):
        decode_metadata(whole[:-3])
    with pytest.raises(TrxpError, match="not a TRXP"):
        decode_metadata(pickle.dumps({"items": []}))
    with pytest.raises(pickle.UnpicklingError, match="refusing to load .*Experience"):
        decode_metadata(trxp({"items": [Experience()]}))


def test_experiences_db_rows_become_episodes_and_a_bad_row_keeps_its_columns(tmp_path: Path):
    """experiences.db: each row an episode (T<task>#R<run>); a row that does not decode keeps its columns."""
    db = tmp_path / "experiences.db"
    con = sqlite3.connect(db)
    con.execute(
        "CREATE TABLE debug_buffer (id INTEGER PRIMARY KEY, task_id TEXT, run_id INTEGER, reward REAL, "
        "experience_bytes BLOB)"
    )
    good = trxp({"items": [{"response_text": "42", "metrics": {"accuracy": 1.0}, "tokens": [1, 2]}]})
    con.execute("INSERT INTO debug_buffer VALUES (1, 'sum', 0, 1.0, ?)", (good,))
    con.execute("INSERT INTO debug_buffer VALUES (2, 'sum', 1, 0.0, ?)", (trxp({"items": [Experience()]}),))
    con.commit()
    con.close()
    first, second = read_experiences(str(db))
    assert (first["episode"], first["taskId"], first["repeat"], first["reward"]) == ("Tsum#R0", "sum", 0, 1.0)
    assert first["metrics"] == {"accuracy": 1.0}
    assert first["metadata"] == {"response_text": "42"}
    assert (second["episode"], second["reward"], second["metadata"], second["metrics"]) == ("Tsum#R1", 0.0, {}, {})
