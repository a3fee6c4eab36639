"""Who may connect to the Python relay: one strict rule for credentials in the URL (path or
query, percent-encoded or not), a token file that holds exactly one token, the loopback test."""

import os
import tempfile
import unittest

from agentrl_relay.auth import (
    TokenFileError,
    check_upgrade,
    is_loopback_host,
    read_token,
)
from agentrl_relay.websocket import HttpRequest

TOKEN = "t0k3n-0123456789"


def request(target: str, **headers: str) -> HttpRequest:
    return HttpRequest("GET", target, {k.lower(): v for k, v in headers.items()})


class UrlTest(unittest.TestCase):
    def test_credential_looking_urls_are_refused_with_the_right_header_too(self):
        for target in ["/?token=x", "/?a=1;token=x", "/?%74oken=x", "/?%2574oken=x", "/?bearer=x", "/token=x", "/?API_KEY=x", "/?x=1&access-token=y", "/p/secret=1"]:
            ok, status, reason = check_upgrade(request(target, authorization=f"Bearer {TOKEN}"), TOKEN, [])
            self.assertEqual((ok, status), (False, 400), target)
            self.assertNotIn("x", reason.replace("text", "").split(":")[0][-3:])

    def test_ordinary_urls_pass(self):
        for target in ["/", "/?monkey=1", "/relay/?run=a", "/?stoken"]:
            self.assertEqual(check_upgrade(request(target, authorization=f"Bearer {TOKEN}"), TOKEN, [])[:2], (True, 0), target)

    def test_bearer_origin_and_loopback(self):
        self.assertEqual(check_upgrade(request("/"), TOKEN, [])[1:], (401, "missing bearer token"))
        self.assertEqual(check_upgrade(request("/", authorization="Bearer nope"), TOKEN, [])[1:], (401, "invalid token"))
        self.assertEqual(check_upgrade(request("/", origin="https://x.example"), None, [])[1:], (403, "origin not allowed"))
        self.assertTrue(is_loopback_host("127.1.2.3") and is_loopback_host("[::1]") and is_loopback_host("localhost"))
        self.assertFalse(is_loopback_host("0.0.0.0") or is_loopback_host("10.0.0.1"))


class TokenFileTest(unittest.TestCase):
    def file(self, text: str) -> str:
        fd, path = tempfile.mkstemp()
        os.write(fd, text.encode())
        os.close(fd)
        self.addCleanup(os.unlink, path)
        return path

    def test_one_token(self):
        self.assertEqual(read_token(self.file(f"\n  {TOKEN}  \n\n")), TOKEN)

    def test_a_token_no_header_could_match_is_refused(self):
        for text in ["abc def\n", "", "\n \n", "one\ntwo\n"]:
            with self.assertRaises(TokenFileError, msg=repr(text)):
                read_token(self.file(text))


if __name__ == "__main__":
    unittest.main()
