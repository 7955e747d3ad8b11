"""Errors a client can read (issue 39, point 3): the refusals the daemon's connection gate makes
before it reads a body (413 for a body announced over the 1 MiB limit, 401 without a live token,
429 for an address that sent too many bad tokens) reach Python's standard HTTP client, which
writes its whole body before it reads the answer: the daemon answers with ``Connection: close``
and reads the rest of the announced body before it closes (docs/api.md "Limits"), so ``urllib``
and ``http.client`` get the JSON error of a 64 MiB submission instead of a broken pipe, and the
SDK raises :class:`kwb.TooLargeError` with the daemon's message. (A body over the limit is
refused for its size before its token is looked at, so the 401 and 429 cases send a body of the
largest size the daemon takes.)

Run by ctest (tests/CMakeLists.txt: AgentHttpRefusals); by hand:
    KWB_TEST_BIN_DIR=build/bin python3 -m unittest -v test_http_refusals   (in tests/agents)
"""
import http.client
import json
import unittest
import urllib.error
import urllib.request
from typing import Any, Dict, Tuple

from daemon import Daemon  # also puts agents/python on sys.path

import kwb

BIG = 64 << 20  # a 64 MiB submission: 64 times the daemon's 1 MiB limit on bodies
AT_LIMIT = b"x" * (1 << 20)  # a body of the largest size taken: refused for its token, unread


def big_submission() -> bytes:
    return json.dumps({"op": "vector_add", "source": "x" * BIG}).encode("utf-8")


def post_with_http_client(port: int, body: bytes, headers: Dict[str, str]) -> Tuple[int, Dict[str, str], Any]:
    """POST /v1/candidates with http.client: the whole body is written, then the answer read."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        conn.request("POST", "/v1/candidates", body=body, headers={"Content-Type": "application/json", **headers})
        r = conn.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, json.loads(r.read().decode("utf-8"))
    finally:
        conn.close()


class RefusalsReachPythonClients(unittest.TestCase):
    daemon: Daemon

    @classmethod
    def setUpClass(cls) -> None:
        cls.daemon = Daemon()

    @classmethod
    def tearDownClass(cls) -> None:
        cls.daemon.remove()

    def test_urllib_reads_the_413_of_a_64_mib_submission(self) -> None:
        req = urllib.request.Request(self.daemon.url + "/v1/candidates", data=big_submission(), method="POST",
                                     headers={"Content-Type": "application/json",
                                              "Authorization": "Bearer " + self.daemon.admin_token})
        with self.assertRaises(urllib.error.HTTPError) as cm:
            urllib.request.urlopen(req, timeout=60)
        with cm.exception as e:
            self.assertEqual(e.code, 413)
            self.assertEqual(e.headers.get("Connection"), "close")
            err = json.loads(e.read().decode("utf-8"))["error"]
        self.assertEqual(err["type"], "too_large")
        self.assertIn("larger than the limit", err["message"])

    def test_http_client_reads_the_413_of_a_64_mib_submission(self) -> None:
        status, headers, doc = post_with_http_client(self.daemon.port, big_submission(),
                                                     {"Authorization": "Bearer " + self.daemon.admin_token})
        self.assertEqual((status, doc["error"]["type"]), (413, "too_large"))
        self.assertEqual(headers.get("connection"), "close")

    def test_http_client_reads_the_401_of_a_body_without_a_token(self) -> None:
        status, headers, doc = post_with_http_client(self.daemon.port, AT_LIMIT, {})
        self.assertEqual(status, 401)
        self.assertEqual(headers.get("www-authenticate"), "Bearer")
        self.assertEqual(headers.get("connection"), "close")
        self.assertEqual(doc["error"]["type"], "unauthorized")

    def test_the_sdk_raises_too_large_with_the_daemons_message(self) -> None:
        client = kwb.Client(self.daemon.url, self.daemon.admin_token, retries=0)
        with self.assertRaises(kwb.TooLargeError) as cm:
            client.submit("vector_add", "x" * BIG)
        self.assertEqual((cm.exception.status, cm.exception.type), (413, "too_large"))
        self.assertIn("larger than the limit", str(cm.exception))
        # The connection was closed cleanly: the next call works.
        self.assertEqual(client.health()["status"], "ok")


class ThrottledAddressesReadTheir429(unittest.TestCase):
    """Its own daemon: the throttle refuses every request from 127.0.0.1 for a while."""

    def test_http_client_reads_the_429_of_a_body_from_a_throttled_address(self) -> None:
        daemon = Daemon()
        try:
            status = 0
            for _ in range(30):  # unknown tokens until the address is throttled
                status, headers, doc = post_with_http_client(daemon.port, b"{}", {"Authorization": "Bearer kwb_nope"})
                if status == 429:
                    break
            self.assertEqual(status, 429, "the address was never throttled")
            status, headers, doc = post_with_http_client(daemon.port, AT_LIMIT, {"Authorization": "Bearer kwb_nope"})
            self.assertEqual(status, 429)
            self.assertEqual(doc["error"]["type"], "too_many_failed_logins")
            self.assertTrue(headers.get("retry-after", "").isdigit(), headers)
            self.assertEqual(headers.get("connection"), "close")
        finally:
            daemon.remove()


if __name__ == "__main__":
    unittest.main()
