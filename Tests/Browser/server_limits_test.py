"""Loads that once stopped the web preview (`coordrun serve`), each bounded and ending by itself, on 127.0.0.1.

Run by Tests/EndToEndTests/PreviewBrowserTests.swift:
    server_limits_test.py PREVIEW_URL SERVER_PID CONNECTIONS
PREVIEW_URL is a preview whose descriptor limit lets it hold fewer than CONNECTIONS connections; SERVER_PID
is its process. No load here carries the preview's token, but GET /state (which does) and a page's
WebSocket. After each load (and while the connections of a load are still open) a GET /state must be
answered: the server neither stops nor waits on the load. Prints one line a check, with the time GET /state
took (measured, not asserted past a generous bound: a busy machine is slow, a blocked server never answers);
exits 1 at the first that fails.
"""
import json
import socket
import struct
import sys
import time

from preview_client import Preview

preview_url, pid, connections = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
preview = Preview(preview_url)
host, port, token = preview.host, preview.port, preview.token.encode()
BOUND = 60.0  # seconds, a net: the server that waited on these loads took minutes, or never answered


def check(condition, what):
    if not condition:
        print("FAILED: " + what, flush=True)
        sys.exit(1)
    print("ok: " + what, flush=True)


def connect():
    return socket.create_connection((host, port), timeout=BOUND)


def answer(sock):
    """The status and body of one answer on `sock`."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    status = int(head.split(b" ")[1]) if head.startswith(b"HTTP/1.1 ") else 0
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return status, body


def state(what):
    started = time.monotonic()
    with connect() as sock:
        sock.sendall(b"GET /state HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Coordrun-Token: " + token + b"\r\nConnection: close\r\n\r\n")
        status, body = answer(sock)
    took = time.monotonic() - started
    check(status == 200 and "revision" in json.loads(body), "GET /state is answered %s (%.3f s)" % (what, took))
    print("measure: GET /state %s: %.3f s" % (what, took), flush=True)


def resident():
    with open("/proc/%d/status" % pid) as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


state("before any load")
idle_memory = resident()

# Uploads without the token: the gate decides on the head, so no body is read or kept (60 connections
# each announcing and sending 8 MiB once took the server to 533 MB).
uploads = []
for _ in range(60):
    sock = connect()
    sock.sendall(b"POST /action HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % (8 << 20))
    uploads.append(sock)
chunk = b"x" * (1 << 20)
refused = 0
for sock in uploads:
    try:
        for _ in range(8):
            sock.sendall(chunk)
    except OSError:
        pass  # the server refused the head and closed: the rest is never read
    try:
        status, body = answer(sock)
        refused += status == 403 and b"token" in body
    except OSError:
        refused += 1  # closed before the answer could be read back: refused all the same
check(refused == 60, "60 uploads of 8 MiB without the token are refused (%d)" % refused)
grown = resident() - idle_memory
check(grown < 32 << 20, "the server's memory is within 32 MiB of idle (%d KiB more)" % (grown >> 10))
state("beside 60 refused uploads of 8 MiB")
for sock in uploads:
    sock.close()

# Long request lines and header lines: refused with 431 as soon as they pass 8 KiB; the server does not scan
# what follows (two 256 KiB lines once kept it busy for minutes).
for what, head in (("a request line", b"GET /" + b"a" * (256 << 10)), ("a header line", b"GET /state HTTP/1.1\r\nX-Long: " + b"b" * (256 << 10))):
    senders = []
    for _ in range(2):
        sock = connect()
        try:
            sock.sendall(head)
        except OSError:
            pass  # the server answered and closed before all of it was sent
        senders.append(sock)
    for sock in senders:
        status, body = answer(sock)
        check(status == 431 and b"8 KiB" in body, "%s of 256 KiB is refused with 431" % what)
    state("beside two connections that sent %s of 256 KiB" % what)
    for sock in senders:
        sock.close()

many = 100
with connect() as sock:
    sock.sendall(b"GET /state HTTP/1.1\r\nHost: 127.0.0.1\r\n" + b"".join(b"X-Header-%d: %s\r\n" % (i, b"c" * 1000) for i in range(many)) + b"\r\n")
    status, body = answer(sock)
    check(status == 431 and b"64 KiB" in body, "headers over 64 KiB in all are refused with 431")

# More idle connections than the server may hold: each newcomer takes the place of the idlest; the server
# goes on (it once exited when accept() ran out of descriptors).
idle = []
for _ in range(connections):
    try:
        idle.append(connect())
    except OSError as error:
        check(False, "connection %d was accepted or closed, not refused (%s)" % (len(idle) + 1, error))
check(len(idle) == connections, "%d idle connections were opened" % connections)
state("with %d idle connections open" % connections)
closed = 0
for sock in idle:
    sock.setblocking(False)
    try:
        if sock.recv(1) == b"":
            closed += 1
    except BlockingIOError:
        pass
    except OSError:
        closed += 1
    sock.close()
check(closed > 0, "the server closed %d of them to make room" % closed)

# A peer without the token holds every connection it can, and asks for WebSockets: it gets none (its
# connections are idle ones, which make room), and the page's own WebSocket is taken in.
held = [connect() for _ in range(connections)]
sock, head = preview.websocket(token=False, timeout=BOUND)
check(head.startswith(b"HTTP/1.1 403"), "a WebSocket without the token is refused (%r)" % head[:40])
sock.close()
sock, head = preview.websocket(timeout=BOUND)
check(head.startswith(b"HTTP/1.1 101"), "with %d connections of a peer open, the page's WebSocket is accepted (%r)" % (connections, head[:40]))
sock.close()
for held_sock in held:
    held_sock.close()

# A WebSocket message over 1 MiB: the socket is closed with 1009 before the message is read, and the
# server's memory does not grow by it (a 1 GiB frame once took it to 1.8 GB).
before = resident()
sock, head = preview.websocket(timeout=BOUND)
with sock:
    check(head.startswith(b"HTTP/1.1 101") and b"s3pPLMBiTxaQ9kYGzzhZRbK+xOo=" in head, "the WebSocket handshake is accepted (RFC 6455's example key)")
    # The head of a masked text frame declaring 1 GiB: the server answers it before reading any more (what
    # a peer sends past it would only reset the connection before the answer is read here).
    sock.sendall(struct.pack("!BBQ", 0x81, 0x80 | 127, 1 << 30))
    frames = b""
    code = None
    sock.settimeout(BOUND)
    while code is None:
        chunk = sock.recv(65536)
        if not chunk:
            break
        frames += chunk
        offset = 0
        while offset + 2 <= len(frames):
            opcode, length = frames[offset] & 0x0F, frames[offset + 1] & 0x7F
            skip = 2
            if length == 126:
                length = struct.unpack("!H", frames[offset + 2:offset + 4])[0]
                skip = 4
            elif length == 127:
                length = struct.unpack("!Q", frames[offset + 2:offset + 10])[0]
                skip = 10
            if offset + skip + length > len(frames):
                break
            if opcode == 0x8:
                code = struct.unpack("!H", frames[offset + skip:offset + skip + 2])[0]
            offset += skip + length
    check(code == 1009, "a 1 GiB message is refused with close code 1009 (got %r)" % code)
grown = resident() - before
check(grown < 64 << 20, "the server's memory grew by %d KiB, not by the message" % (grown >> 10))
state("after the WebSocket message")
print("ok: every load left the preview answering", flush=True)
