"""A misbehaving NTRIP caster for gpsbridge's tests, on 127.0.0.1.

Usage: fake-caster.py PORT MODE STREAM_FILE

MODE is one of:
  stream    answers ICY 200 OK and sends STREAM_FILE's bytes a second's worth (its RTCM frames
            in pairs) at a time, every 0.2 s, again and again; prints each line the client
            sends after its request (the GGA it sends up) as "UP <line>".
  v2        the same as NTRIP 2: HTTP/1.1 200 OK, chunked.
  garbage   answers garbage and closes.
  close     closes at once, without a word.
  stall     streams for a second, then sends nothing more, holding the connection until the
            client closes it.
  offline   answers the first two requests for the mountpoint with its sourcetable (the base
            is offline), then streams.
  dribble   streams, but answers the sourcetable (GET /) a byte every 4 s, for ever.
Each connection is said as "CONNECTION <n>".
"""
import socket, sys, threading, time

port, mode, path = int(sys.argv[1]), sys.argv[2], sys.argv[3]
data = open(path, "rb").read()
# The frames, each D3 + 2 length bytes + message + 3 CRC bytes, grouped by two.
frames, index = [], 0
while index + 3 <= len(data):
    length = (data[index + 1] & 3) << 8 | data[index + 2]
    frames.append(data[index:index + 6 + length])
    index += 6 + length
seconds = [b"".join(frames[i:i + 2]) for i in range(0, len(frames), 2)] or [data]
count = [0]
mount_requests = [0]

def serve(connection):
    count[0] += 1
    print("CONNECTION", count[0], flush=True)
    request = b""
    while b"\r\n\r\n" not in request:
        chunk = connection.recv(4096)
        if not chunk:
            return
        request += chunk
    rest = request.split(b"\r\n\r\n", 1)[1]
    asks_table = request.startswith(b"GET / ")
    if mode == "dribble" and asks_table:
        connection.sendall(b"SOURCETABLE 200 OK\r\n")
        try:
            while True:
                time.sleep(4)
                connection.sendall(b"S")
        except OSError:
            return
    if mode == "offline" and not asks_table:
        mount_requests[0] += 1
        if mount_requests[0] <= 2:
            connection.sendall(b"SOURCETABLE 200 OK\r\nContent-Type: text/plain\r\n\r\n"
                               b"STR;BASE1;Here;RTCM 3.3;1005(10),1077(1);2;GPS;NET;DEU;47.37;8.54;0;0;none;none;N;N;2400;\r\n"
                               b"ENDSOURCETABLE\r\n")
            connection.close()
            return
    if mode == "close":
        connection.close()
        return
    if mode == "garbage":
        connection.sendall(b"\x01\x02 this is no caster \xff\r\n\r\n")
        connection.close()
        return
    connection.sendall(b"HTTP/1.1 200 OK\r\nNtrip-Version: Ntrip/2.0\r\nTransfer-Encoding: chunked\r\nContent-Type: gnss/data\r\n\r\n"
                       if mode == "v2" else b"ICY 200 OK\r\n")
    connection.setblocking(False)
    upstream = rest
    sent = 0
    while True:
        if mode == "stall" and sent >= 5:
            # Nothing more: the connection held until the client closes it.
            connection.setblocking(True)
            try:
                while connection.recv(4096):
                    pass
            except OSError:
                pass
            return
        body = seconds[sent % len(seconds)]
        try:
            connection.sendall(b"%x\r\n%s\r\n" % (len(body), body) if mode == "v2" else body)
        except (BlockingIOError, BrokenPipeError, ConnectionResetError):
            return
        sent += 1
        time.sleep(0.2)
        try:
            chunk = connection.recv(4096)
            if chunk == b"":
                return
            upstream += chunk
        except BlockingIOError:
            pass
        except (ConnectionResetError, OSError):
            return
        while b"\n" in upstream:
            line, upstream = upstream.split(b"\n", 1)
            print("UP", line.decode(errors="replace").strip(), flush=True)

listener = socket.socket()
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(("127.0.0.1", port))
listener.listen(8)
print("LISTENING", flush=True)
while True:
    connection, _ = listener.accept()
    threading.Thread(target=serve, args=(connection,), daemon=True).start()
