"""Reads the status page in a headless Chromium through the DevTools protocol.

Usage: read-page.py DEVTOOLS_PORT PAGE_URL SCREENSHOT_PATH

Opens PAGE_URL, waits until the page has drawn at least two live events, reads the satellites
drawn (their numbers, systems and use), the position shown and the interference banner (if
shown), waits for two more events, reads the position again, saves a screenshot, and prints
one JSON object with what it read.
A minimal WebSocket client (RFC 6455), since the standard library has none.
"""
import base64, json, os, socket, struct, sys, urllib.request

port, url, screenshot = int(sys.argv[1]), sys.argv[2], sys.argv[3]

targets = json.load(urllib.request.urlopen("http://127.0.0.1:%d/json/list" % port, timeout=10))
page = next(t for t in targets if t.get("type") == "page")
address = page["webSocketDebuggerUrl"].split("//", 1)[1]
host_port, path = address.split("/", 1)
connection = socket.create_connection(("127.0.0.1", int(host_port.split(":")[1])), timeout=30)
key = base64.b64encode(os.urandom(16)).decode()
connection.sendall(("GET /%s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n" % (path, host_port, key)).encode())
handshake = b""
while b"\r\n\r\n" not in handshake:
    handshake += connection.recv(1)
if b" 101 " not in handshake.split(b"\r\n")[0]:
    sys.exit("no WebSocket: %r" % handshake)
# An answer may wait for the page as long as a wait's bound (30 s), and a little more.
connection.settimeout(60)

def exactly(count):
    data = b""
    while len(data) < count:
        chunk = connection.recv(count - len(data))
        if not chunk:
            sys.exit("DevTools closed the connection")
        data += chunk
    return data

def send(message):
    payload = json.dumps(message).encode()
    mask = os.urandom(4)
    header = bytes([0x81])
    if len(payload) < 126:
        header += bytes([0x80 | len(payload)])
    elif len(payload) < 65536:
        header += bytes([0x80 | 126]) + struct.pack(">H", len(payload))
    else:
        header += bytes([0x80 | 127]) + struct.pack(">Q", len(payload))
    connection.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))

def receive():
    message = b""
    while True:
        first, second = exactly(2)
        length = second & 0x7F
        if length == 126:
            length = struct.unpack(">H", exactly(2))[0]
        elif length == 127:
            length = struct.unpack(">Q", exactly(8))[0]
        message += exactly(length)
        if first & 0x80:
            return json.loads(message)

counter = [0]
events = []
def call(method, **params):
    counter[0] += 1
    send({"id": counter[0], "method": method, "params": params})
    while True:
        answer = receive()
        if answer.get("id") == counter[0]:
            if "error" in answer:
                sys.exit("%s: %s" % (method, answer["error"]))
            return answer.get("result", {})
        if "method" in answer:
            events.append(answer["method"])

def wait_for(event):
    while event not in events:
        message = receive()
        if "method" in message:
            events.append(message["method"])

def evaluate(expression):
    return call("Runtime.evaluate", expression=expression, returnByValue=True)["result"].get("value")

def drawn():
    return int(evaluate("document.body ? Number(document.body.dataset.events || 0) : 0") or 0)

def until(condition, seconds):
    """Whether `condition` (JavaScript) holds, now or once a change to the page makes it
    hold, within `seconds` (a bound: the page tells when it changes)."""
    return call("Runtime.evaluate", awaitPromise=True, returnByValue=True, expression="""new Promise(resolve => {
      const holds = () => { try { return Boolean(%s) } catch (error) { return false } };
      if (holds()) return resolve(true);
      const observer = new MutationObserver(() => { if (holds()) { observer.disconnect(); resolve(true) } });
      observer.observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
      setTimeout(() => { observer.disconnect(); resolve(holds()) }, %d);
    })""" % (condition, seconds * 1000))["result"].get("value")

def wait_for_events(count, seconds=30):
    if not until("document.body && Number(document.body.dataset.events || 0) >= %d" % count, seconds):
        sys.exit("the page drew %d live events in %d s, not %d" % (drawn(), seconds, count))

read_satellites = """[...document.querySelectorAll('g.sat')].map(g => ({prn: Number(g.dataset.prn),
  constellation: g.dataset.constellation, used: g.dataset.used === 'true'}))"""
read_position = "(() => { const p = document.querySelector('.position'); return p ? p.textContent : null })()"

call("Page.enable")
call("Emulation.setDeviceMetricsOverride", width=1100, height=900, deviceScaleFactor=1, mobile=False)
call("Page.navigate", url=url)
wait_for("Page.loadEventFired")
wait_for_events(2)
first = {"satellites": evaluate(read_satellites), "position": evaluate(read_position), "events": drawn(),
         "header": evaluate("document.querySelector('header').textContent"),
         "time": evaluate("(() => { const t = document.querySelector('.receiver-time'); return t ? t.textContent : null })()"),
         "alarm": evaluate("(() => { const a = document.getElementById('alarm'); return a && !a.hidden ? a.textContent : null })()")}
# The position read again once it has changed by the live events (a drive may stand still at
# first), or after 20 s, when it is read as it is.
wait_for_events(first["events"] + 2)
until("%s !== %s" % (read_position, json.dumps(first["position"])), 20)
second = {"position": evaluate(read_position), "events": drawn(),
          "live": evaluate("document.getElementById('live').textContent")}
image = call("Page.captureScreenshot", format="png")["data"]
with open(screenshot, "wb") as file:
    file.write(base64.b64decode(image))
print(json.dumps({"first": first, "second": second}))
