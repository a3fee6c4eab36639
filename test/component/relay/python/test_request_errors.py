"""What a client is told when a request fails: the relay's own messages as they are, never
Python's raw text for anything else (a bug, a decoder's KeyError), which is logged instead."""

from __future__ import annotations

import unittest
from types import SimpleNamespace

from agentrl_relay.pickles import RowDecodeError
from agentrl_relay.session import Session


class RequestErrorTest(unittest.TestCase):
    def said(self, e: BaseException) -> tuple[str, list[str]]:
        logged: list[str] = []
        me = SimpleNamespace(id=7, relay=SimpleNamespace(log=lambda level, m: logged.append(m)))
        return Session._said(me, e), logged  # type: ignore[arg-type]

    def test_the_relays_own_messages_pass(self):
        for e in (RuntimeError("no row 9 in experience_buffer"), RowDecodeError("tensor 0:tokens: bad shape"), FileNotFoundError(2, "No such file", "x.jsonl")):
            self.assertEqual(self.said(e), (str(e), []))

    def test_raw_python_text_is_not_sent(self):
        for e in (KeyError("fields"), TypeError("'NoneType' object is not subscriptable"), RecursionError("maximum recursion depth exceeded"), UnicodeDecodeError("utf-8", b"\xb6", 0, 1, "invalid start byte")):
            text, logged = self.said(e)
            self.assertEqual(text, f"the relay could not read this ({type(e).__name__})")
            self.assertEqual(len(logged), 1)


if __name__ == "__main__":
    unittest.main()
