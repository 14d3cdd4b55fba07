"""A page on another origin attacks the web preview (`coordrun serve`) from a real headless Chromium.

Run by Tests/EndToEndTests/PreviewBrowserTests.swift:
    cross_origin_test.py PREVIEW_URL MARKER
PREVIEW_URL serves an app on 127.0.0.1; MARKER is a file path that exists only if the attack ran Lua.

The attacker's page is served by this script from another origin (127.0.0.1 on another port). It is given
the preview's token, as if it had leaked, so that what stops it is the gate's other rules. It tries what
a hostile page can do without the user's help: a no-cors POST of a Lua action as text/plain, a form posted
as text/plain, a WebSocket to /live, an image and a script loading the preview's pages; and through DNS
rebinding (Chromium maps attacker.example to 127.0.0.1), the preview read as the attacker's own origin.
Each attempt reports back when the browser finished it (no waiting on the clock). Prints one line a check;
exits 1 at the first that fails.
"""
import http.server
import json
import os
import sys
import threading

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import WebDriverWait

from preview_client import Preview

preview_url, marker = sys.argv[1:3]
preview = Preview(preview_url)
port = preview.port
lua = "os.execute([[touch %s]])" % marker
action = json.dumps({"action": "lua", "code": lua})
form_name = json.dumps({"action": "lua", "code": lua, "x": ""})[:-3]  # the body is NAME=VALUE: `..."x": "` + `="}`

attack = """<!doctype html><html><body>
<iframe name="sink" id="sink"></iframe>
<form id="form" method="POST" action="%(action_url)s" enctype="text/plain" target="sink">
  <input type="hidden" name='%(form_name)s' value='"}'>
</form>
<pre id="stolen"></pre>
<script>
const done = {};
function finish(what) { done[what] = true; document.title = Object.keys(done).sort().join(","); }
fetch("%(action_url)s", { method: "POST", mode: "no-cors", headers: { "Content-Type": "text/plain" }, body: %(action)s })
  .then(() => finish("fetch"), () => finish("fetch"));
fetch("%(state_url)s").then((r) => r.text()).then((t) => { document.getElementById("stolen").textContent += t; finish("read"); }, () => finish("read"));
document.getElementById("sink").onload = () => finish("form");
document.getElementById("form").submit();
const socket = new WebSocket("%(live_url)s");
socket.onmessage = (m) => { document.getElementById("stolen").textContent += m.data; };
socket.onerror = () => finish("socket");
socket.onclose = () => finish("socket");
const image = new Image();
image.onload = image.onerror = () => finish("image");
image.src = "%(graph_url)s";
</script></body></html>""" % {"action_url": preview.url("action"), "state_url": preview.url("state"), "graph_url": preview.url("graph.svg"),
                               "live_url": preview.url("live").replace("http://", "ws://"),
                               "form_name": form_name.replace("'", "&#39;"), "action": json.dumps(action)}


class Attacker(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = attack.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


server = http.server.HTTPServer(("127.0.0.1", 0), Attacker)
threading.Thread(target=server.serve_forever, daemon=True).start()
attacker_url = "http://127.0.0.1:%d/" % server.server_address[1]

options = Options()
options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
             "--host-resolver-rules=MAP attacker.example 127.0.0.1"):
    options.add_argument(flag)
driver = webdriver.Chrome(service=Service(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")), options=options)


def check(condition, what):
    if not condition:
        print("FAILED: " + what, flush=True)
        driver.quit()
        sys.exit(1)
    print("ok: " + what, flush=True)


def history():
    return preview.state()["history"]


before = history()
driver.get(attacker_url)
WebDriverWait(driver, 60).until(lambda d: d.title == "fetch,form,image,read,socket")
check(True, "the attacker's page finished every attempt")
check(not os.path.exists(marker), "a no-cors POST and a text/plain form ran no Lua")
check(driver.find_element("id", "stolen").text == "", "the page on another origin read nothing of the session (no state, no WebSocket message)")
check(history() == before, "the session's history is unchanged")

# DNS rebinding: the attacker's name now points at the preview, so the page is same-origin with it.
rebound = "http://attacker.example:%d/" % port
driver.get(rebound + "state?token=" + preview.token)
check("answers only to its own address" in driver.page_source, "a page reached through another name (DNS rebinding) is refused")
driver.get(rebound + "?token=" + preview.token)
check("answers only to its own address" in driver.page_source, "and so is the page itself")

# The preview's own page works as before: same origin, its actions go through.
driver.get(preview_url)
WebDriverWait(driver, 60).until(lambda d: d.find_element("id", "screen-title").text == "Sign in")
driver.execute_script("""
  const done = arguments[0];
  fetch("/action", { method: "POST", headers: { "Content-Type": "application/json", "X-Coordrun-Token": document.body.dataset.token },
                     body: JSON.stringify({ action: "lua", code: "x = 1" }) })
    .then((r) => r.json()).then((s) => { document.title = "answered " + (s.error || "ok"); });
""", None)
WebDriverWait(driver, 60).until(lambda d: d.title.startswith("answered"))
check(driver.title == "answered ok", "the preview's own page still acts on it")
driver.quit()
server.shutdown()
print("ok: the preview took nothing from another origin", flush=True)
