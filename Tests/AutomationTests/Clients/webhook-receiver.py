"""A webhook receiver for the tests: logs every request it gets as a JSON line.

usage: webhook-receiver.py PORT LOG MODE [CERTIFICATE KEY]
MODE: flaky (500 twice, then 200 for good), redirect (to itself, for ever), silent (never answers),
      ok (200 at once), huge (200 with a body of 1 GB), endless (200 whose chunked body never
      ends), slow (200 after 8 s).
With CERTIFICATE and KEY (PEM files), it serves https.
"""
import http.server
import json
import ssl
import sys
import threading
import time

port, log, mode = int(sys.argv[1]), sys.argv[2], sys.argv[3]
count = 0
lock = threading.Lock()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        global count
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length).decode()
        with lock:
            count += 1
            n = count
        if mode == "silent":
            # Never answers: holds the connection until the client hangs up.
            self.rfile.read()
            return
        if mode == "slow":
            with lock, open(log, "a") as f:
                f.write(json.dumps({"n": n, "status": 0, "key": self.headers.get("Idempotency-Key"), "body": "waiting"}) + "\n")
            time.sleep(8)
        if mode == "redirect":
            status = 307
        elif mode == "flaky":
            status = 500 if n <= 2 else 200
        else:
            status = 200
        with lock, open(log, "a") as f:
            f.write(json.dumps({"n": n, "status": status, "key": self.headers.get("Idempotency-Key"), "body": body}) + "\n")
        self.send_response(status)
        if status == 307:
            self.send_header("Location", self.path)
        if mode == "huge":
            chunk = b"x" * 65536
            self.send_header("Content-Length", str(1 << 30))
            self.end_headers()
            try:
                for _ in range((1 << 30) // len(chunk)):
                    self.wfile.write(chunk)
            except OSError:
                pass
            self.close_connection = True
            return
        if mode == "endless":
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            try:
                # As fast as the client takes it.
                while True:
                    self.wfile.write(b"1\r\nx\r\n")
                    self.wfile.flush()
            except OSError:
                pass
            self.close_connection = True
            return
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


http.server.ThreadingHTTPServer.daemon_threads = True
server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
if len(sys.argv) > 5:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(sys.argv[4], sys.argv[5])
    server.socket = context.wrap_socket(server.socket, server_side=True)
server.serve_forever()
