"""A minimal WebSocket client of the browser desk (app/serve), on Python's standard library only: the opening
handshake (RFC 6455), text and binary messages (fragments joined, the client's frames masked), and the desk's
frame message (app/serve/protocol.hpp: "ILF2" | index | width | height | n | n x (y, rows, scale, bytes) |
JPEGs) decoded with Pillow, independently of the project's own JPEG code."""

import base64
import io
import json
import os
import socket
import struct
import time
import urllib.parse

OP_CONTINUATION, OP_TEXT, OP_BINARY, OP_CLOSE, OP_PING, OP_PONG = 0x0, 0x1, 0x2, 0x8, 0x9, 0xA


def wait_for(what, condition, timeout=60, said=lambda: ""):
    """Polls condition() until it returns something true and returns that; raises after `timeout` seconds
    with what it waited for and what `said()` adds (e.g. the app's output)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    detail = said()
    raise AssertionError(f"timed out waiting for {what}" + (f"; {detail}" if detail else ""))


class Refused(Exception):
    """The server answered the upgrade with something other than 101 (e.g. 403 without the token)."""

    def __init__(self, status, body):
        super().__init__(f"HTTP {status}: {body}")
        self.status = status


class DeskClient:
    """One WebSocket viewer of a desk at `url` (http://HOST:PORT/?token=...), as the page would be."""

    def __init__(self, url, token=None, timeout=30.0):
        parts = urllib.parse.urlsplit(url)
        query = urllib.parse.parse_qs(parts.query)
        token = query.get("token", [""])[0] if token is None else token
        self.socket = socket.create_connection((parts.hostname, parts.port), timeout=timeout)
        self._buffer = b""
        key = base64.b64encode(os.urandom(16)).decode()
        request = (f"GET /?token={urllib.parse.quote(token)} HTTP/1.1\r\nHost: {parts.hostname}:{parts.port}\r\n"
                   f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                   "Sec-WebSocket-Version: 13\r\n\r\n")
        self.socket.sendall(request.encode())
        head = self._read_until(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1])
        if status != 101:
            self.socket.close()
            raise Refused(status, self._buffer.decode("utf-8", "replace"))

    def _read_until(self, marker):
        while marker not in self._buffer:
            chunk = self.socket.recv(65536)
            if not chunk:
                raise ConnectionError("the desk closed the connection")
            self._buffer += chunk
        head, self._buffer = self._buffer.split(marker, 1)
        return head

    def _read_exactly(self, count):
        while len(self._buffer) < count:
            chunk = self.socket.recv(max(65536, count - len(self._buffer)))
            if not chunk:
                raise ConnectionError("the desk closed the connection")
            self._buffer += chunk
        data, self._buffer = self._buffer[:count], self._buffer[count:]
        return data

    def _read_frame(self):
        first, second = self._read_exactly(2)
        length = second & 0x7F
        if length == 126:
            (length,) = struct.unpack(">H", self._read_exactly(2))
        elif length == 127:
            (length,) = struct.unpack(">Q", self._read_exactly(8))
        mask = self._read_exactly(4) if second & 0x80 else None
        payload = self._read_exactly(length)
        if mask:
            payload = bytes(byte ^ mask[i % 4] for i, byte in enumerate(payload))
        return bool(first & 0x80), first & 0x0F, payload

    def _send_frame(self, opcode, payload):
        mask = os.urandom(4)
        header = bytes([0x80 | opcode])
        if len(payload) < 126:
            header += bytes([0x80 | len(payload)])
        elif len(payload) < 1 << 16:
            header += bytes([0x80 | 126]) + struct.pack(">H", len(payload))
        else:
            header += bytes([0x80 | 127]) + struct.pack(">Q", len(payload))
        self.socket.sendall(header + mask + bytes(byte ^ mask[i % 4] for i, byte in enumerate(payload)))

    def read_message(self):
        """The next message: (is_text, bytes). Pings are answered; a close raises ConnectionError."""
        message, text = b"", None
        while True:
            final, opcode, payload = self._read_frame()
            if opcode == OP_PING:
                self._send_frame(OP_PONG, payload)
                continue
            if opcode == OP_CLOSE:
                raise ConnectionError("the desk closed the WebSocket")
            if opcode != OP_CONTINUATION:
                text = opcode == OP_TEXT
            message += payload
            if final:
                return text, message

    def read_state_and_frame(self):
        """The next state message (parsed JSON) and the frame message after it (decoded: see decode_frame)."""
        while True:
            is_text, message = self.read_message()
            if not is_text:
                continue  # a frame whose state went by before this client asked
            state = json.loads(message)
            if state.get("type") != "state":
                continue
            is_text, frame = self.read_message()
            assert not is_text, "a state message is followed by its frame"
            return state, decode_frame(frame)

    def send_json(self, value):
        self._send_frame(OP_TEXT, json.dumps(value).encode())

    def close(self):
        try:
            self._send_frame(OP_CLOSE, struct.pack(">H", 1000))
        except OSError:
            pass
        self.socket.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def decode_frame(message):
    """A frame message as (index, (height, width, 4) uint8 array): its JPEG strips decoded at their rows, a
    strip of scale s (its rows downscaled, ceil(width / s) x ceil(rows / s) pixels) each pixel an s x s block."""
    # Imported here, not with the module: the desk's browser test takes only wait_for from it, and runs with
    # /usr/bin/python3, which a GPU server without Debian's NumPy or Pillow may lack.
    import numpy
    from PIL import Image  # Debian's python3-pil

    assert message[:4] == b"ILF2", f"not a frame message of this layout ({message[:4]!r}, not ILF2)"
    index, width, height, count = struct.unpack("<4I", message[4:20])
    picture = numpy.zeros((height, width, 4), dtype=numpy.uint8)
    offset = 20 + 16 * count
    for strip in range(count):
        y, rows, scale, size = struct.unpack("<4I", message[20 + 16 * strip:36 + 16 * strip])
        assert scale in (1, 2, 4), f"strip {strip}: scale {scale}"
        decoded = numpy.asarray(Image.open(io.BytesIO(message[offset:offset + size])).convert("RGBA"))
        want = (-(-rows // scale), -(-width // scale), 4)
        assert decoded.shape == want, f"strip {strip}: {decoded.shape}, want {want}"
        picture[y:y + rows] = decoded.repeat(scale, axis=0).repeat(scale, axis=1)[:rows, :width]
        offset += size
    return index, picture
