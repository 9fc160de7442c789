"""A webhook receiver for the tests: logs every request it gets as a JSON line.

usage: webhook-receiver.py PORT LOG MODE
MODE: flaky (500 twice, then 200 for good), redirect (to itself, for ever), silent (never answers)
"""
import http.server
import json
import sys
import threading
import time

port, log, mode = int(sys.argv[1]), sys.argv[2], sys.argv[3]
count = 0
lock = threading.Lock()


class Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        global count
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length).decode()
        with lock:
            count += 1
            n = count
        if mode == "silent":
            time.sleep(3600)
            return
        if mode == "redirect":
            status = 307
        else:
            status = 500 if n <= 2 else 200
        with lock, open(log, "a") as f:
            f.write(json.dumps({"n": n, "status": status, "key": self.headers.get("Idempotency-Key"), "body": body}) + "\n")
        self.send_response(status)
        if status == 307:
            self.send_header("Location", self.path)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


http.server.ThreadingHTTPServer.daemon_threads = True
http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
