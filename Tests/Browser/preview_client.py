"""A `coordrun serve` preview as the tests reach it: from the address it printed, which carries its token
(`http://127.0.0.1:PORT/?token=HEX`). Imported by the tests in this folder, and by the ones
Tests/EndToEndTests runs with this folder on `sys.path`."""
import json
import socket
import urllib.error
import urllib.parse
import urllib.request


class Preview:
    """The preview at `printed`, the URL `coordrun serve` printed."""

    def __init__(self, printed):
        parts = urllib.parse.urlparse(printed)
        self.token = urllib.parse.parse_qs(parts.query)["token"][0]
        self.host, self.port = parts.hostname, parts.port
        self.base = "%s://%s/" % (parts.scheme, parts.netloc)

    def url(self, path="", token=True):
        """The address of `path` (`state`, `snapshot`, `live`), with the token in its query unless told not."""
        if not token:
            return self.base + path
        return self.base + path + ("&" if "?" in path else "?") + "token=" + urllib.parse.quote(self.token)

    def request(self, path, data=None, headers=None, token=True, method=None, timeout=60):
        """(status, body as text, headers) of a request to `path`, the token as its header unless told not;
        an error status is returned, not raised."""
        headers = dict(headers or {})
        if token:
            headers.setdefault("X-Coordrun-Token", self.token)
        request = urllib.request.Request(self.base + path, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return response.status, response.read().decode(), response.headers
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode(), error.headers

    def state(self):
        """The app as `GET /state` gives it."""
        status, body, _ = self.request("state")
        assert status == 200, (status, body)
        return json.loads(body)

    def action(self, action, content_type="application/json", token=True):
        """(status, answer as JSON) of `POST /action` with `action` (a dict, or the body's bytes)."""
        body = action if isinstance(action, bytes) else json.dumps(action).encode()
        status, text, _ = self.request("action", data=body, headers={"Content-Type": content_type}, token=token, method="POST")
        return status, json.loads(text)

    def websocket(self, token=True, timeout=60):
        """A connection that asks for the page's WebSocket (`/live`, the token in its query unless told not),
        and the head of the answer (its status line and headers)."""
        sock = socket.create_connection((self.host, self.port), timeout=timeout)
        path = "/live?token=" + self.token if token else "/live"
        sock.sendall(("GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n" % path).encode())
        head = b""
        while b"\r\n\r\n" not in head:
            byte = sock.recv(1)
            if not byte:
                break
            head += byte
        return sock, head
