"""GET /state is answered while an action runs (a handler that waits), with the state after the last action
that ended; the action then ends and the state moves on.

Run by Tests/EndToEndTests/PreviewBrowserTests.swift:
    busy_action_test.py PREVIEW_URL STARTED GO
The app's handler for `wait` creates STARTED, then waits until GO exists. Prints one line a check; exits 1
at the first that fails.
"""
import os
import sys
import threading

from preview_client import Preview

preview, started, go = Preview(sys.argv[1]), sys.argv[2], sys.argv[3]


def check(condition, what):
    if not condition:
        print("FAILED: " + what, flush=True)
        open(go, "w").close()
        sys.exit(1)
    print("ok: " + what, flush=True)


before = preview.state()
done = {}


def act():
    done["answer"] = preview.action({"action": "tap", "output": "wait"}, token=True)


thread = threading.Thread(target=act)
thread.start()
while not os.path.exists(started):
    thread.join(0.01)  # the handler says it runs
    check(thread.is_alive() or os.path.exists(started), "the action reached its handler")
during = preview.state()
check(thread.is_alive(), "the action still runs")
check(during["revision"] == before["revision"] and during["stack"] == before["stack"],
      "GET /state is answered while it runs, with the state before it")
open(go, "w").close()
thread.join()
status, answer = done["answer"]
check(status == 200 and answer.get("error") is None and answer["stack"] != before["stack"], "the action ends and its state is answered")
check(preview.state()["revision"] == answer["revision"], "and GET /state gives it from then on")
print("ok: the state was answered while an action ran", flush=True)
