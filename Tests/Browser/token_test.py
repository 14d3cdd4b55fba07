"""Every request to the web preview (`coordrun serve`) carries its token, on every address.

Run by Tests/EndToEndTests/PreviewBrowserTests.swift:
    token_test.py PREVIEW_URL MARKER
PREVIEW_URL is the address the preview printed (with its token); MARKER is a file that exists only if a
request without the token ran Lua. Prints one line a check; exits 1 at the first that fails.
"""
import sys

from preview_client import Preview

preview = Preview(sys.argv[1])
marker = sys.argv[2]


def check(condition, what):
    if not condition:
        print("FAILED: " + what, flush=True)
        sys.exit(1)
    print("ok: " + what, flush=True)


check(len(preview.token) == 32 and all(c in "0123456789abcdef" for c in preview.token), "the printed address holds a token of 128 bits")
# Without it, or with another, every path is refused before anything runs.
for path in ("", "index.html", "state", "snapshot", "graph.svg", "live", "nope"):
    code, body, _ = preview.request(path, token=False)
    check(code == 403 and "token" in body, "GET /%s without the token is refused (%d)" % (path, code))
check(preview.request("state", headers={"X-Coordrun-Token": "0" * 32})[0] == 403, "another token is refused")
check(preview.request("state?token=" + "0" * 32, token=False)[0] == 403, "and so is another token in the query")
lua = {"action": "lua", "code": "os.execute([[touch %s]])" % marker}
check(preview.action(lua, token=False)[0] == 403, "an action without the token is refused")
# A WebSocket without it gets no state.
sock, head = preview.websocket(token=False)
sock.close()
check(head.startswith(b"HTTP/1.1 403"), "a WebSocket without the token is refused")

# With it, as the header or in the query, the preview answers.
check(preview.request("state")[0] == 200, "GET /state with the token as its header is answered")
check(preview.request("state?token=" + preview.token, token=False)[0] == 200, "and with the token in its query")
code, page, _ = preview.request("?token=" + preview.token, token=False)
check(code == 200 and ('data-token="%s"' % preview.token) in page, "the page, asked with the token, carries it for its own requests")
check("history.replaceState" in page, "and keeps it in its address, so that a reload works")
code, answer = preview.action({"action": "lua", "code": "x = 1"})
check(code == 200 and answer.get("error") is None, "an action with the token runs")
print("ok: only requests with the token are answered", flush=True)
