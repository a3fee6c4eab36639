"""Who may connect to the Python relay: one strict rule for credentials in the URL (path or
query, percent-encoded or not), a token file that holds exactly one token, the loopback test."""

import os
import tempfile
import unittest

from agentrl_relay.auth import (
    TokenFileError,
    check_upgrade,
    credential_in_url,
    is_loopback_host,
    read_token,
    token_problem,
)
from agentrl_relay.websocket import HttpRequest

TOKEN = "t0k3n-0123456789"


def request(target: str, **headers: str) -> HttpRequest:
    return HttpRequest("GET", target, {k.lower(): v for k, v in headers.items()})


class UrlTest(unittest.TestCase):
    def test_credential_looking_urls_are_refused_with_the_right_header_too(self):
        # The Node relay's vectors (test/unit/relay/serve/auth.test.ts), and a few more.
        for target in ["/?token=x", "/?a=1;token=x", "/?a=1&TOKEN=x", "/?%74oken=x", "/?%2574oken=x", "/?bearer=x", "/?Bearer%20x", "/token=x", "/a/token:x/b",
                       "/?access_token=x", "/?api-key=x", "/?X-Auth=x", "/?passwd=x", "/?client_secret=x", "/?session_id=x", "/?API_KEY=x", "/?x=1&access-token=y",
                       "/p/secret=1", "/?monkey=1", "/?a=1\ttoken=x", "/?a=1+token=x", "/?a=1,token=x", "/?a=1%2Caccess_token=x",
                       f"/?x={TOKEN}", f"/{TOKEN}", f"/a/{TOKEN}/b", f"/?run=%{ord(TOKEN[0]):x}{TOKEN[1:]}"]:
            ok, status, reason = check_upgrade(request(target, authorization=f"Bearer {TOKEN}"), TOKEN, [])
            self.assertEqual((ok, status), (False, 400), target)
            self.assertNotIn("x", reason.replace("text", "").split(":")[0][-3:])

    def test_ordinary_urls_pass(self):
        for target in ["/", "/?run=a", "/relay/", "/relay/?run=a", "/?stoken", "/?run=token", "/tokenizer/"]:
            self.assertEqual(check_upgrade(request(target, authorization=f"Bearer {TOKEN}"), TOKEN, [])[:2], (True, 0), target)

    def test_whole_urls_a_client_would_use(self):
        for url in ["ws://user:pw@127.0.0.1:8765/", "wss://127.0.0.1:8765/?jwt=x"]:
            self.assertIsNotNone(credential_in_url(url), url)
        for url in ["ws://127.0.0.1:8765/", "wss://[::1]:8765/?run=token", "ws://host:1/tokenizer/"]:
            self.assertIsNone(credential_in_url(url), url)

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

    def test_a_bom_is_stripped_and_only_a_short_regular_file_is_read(self):
        self.assertEqual(read_token(self.file(f"\ufeff{TOKEN}\n")), TOKEN)
        with self.assertRaisesRegex(TokenFileError, "longer than 4096 bytes"):
            read_token(self.file(TOKEN + " " * 5000))
        with self.assertRaisesRegex(TokenFileError, "not a regular file"):
            read_token("/dev/zero")
        fifo = os.path.join(tempfile.mkdtemp(), "fifo")
        os.mkfifo(fifo)
        self.addCleanup(os.unlink, fifo)
        with self.assertRaisesRegex(TokenFileError, "not a regular file"):
            read_token(fifo)

    def test_a_token_no_header_could_match_is_refused(self):
        for text in ["abc def\n", "", "\n \n", "one\ntwo\n", "abc\tdef", "t\u00f6k\u00e9n"]:
            with self.assertRaises(TokenFileError, msg=repr(text)):
                read_token(self.file(text))
        self.assertIsNone(token_problem(TOKEN))


if __name__ == "__main__":
    unittest.main()
