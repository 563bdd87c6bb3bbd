"""Bokeh's WSHandler.on_close raises AssertionError after the keep-alive job let the connection go.

Stock Bokeh only. A Bokeh server on loopback with a 200 ms keep-alive; a raw websocket client opens
a session, then sends a frame that breaks Bokeh's protocol (a binary frame first). Bokeh answers
with a close frame; the client does not answer it, so Tornado waits up to 5 s for the closing
handshake. Meanwhile the keep-alive ping meets the closing websocket (``WebSocketClosedError``),
and ``BokehTornado.client_lost`` detaches the connection from its session. When Tornado finally
calls ``on_close``, ``connection.session`` asserts. The silent client only widens a window that a
browser tab closing during a ping hits by chance.

Run: python closed_connection.py (about 6 s). Prints what the keep-alive did and what Tornado logged.
"""

import asyncio
import base64
import logging
import os
import socket
import traceback

from bokeh.application import Application
from bokeh.application.handlers.function import FunctionHandler
from bokeh.models import Div
from bokeh.server.server import Server
from bokeh.server.tornado import BokehTornado
from bokeh.util.token import generate_jwt_token, generate_session_id
from tornado.ioloop import IOLoop

caught: list[str] = []


def keep_alive_traced(self):
    """Bokeh's keep-alive, saying when it lets a connection go."""
    before = len(self._clients)
    ORIGINAL_KEEP_ALIVE(self)
    if len(self._clients) < before:
        print("keep-alive: ping raised WebSocketClosedError, client_lost() detached the session")


class Uncaught(logging.Handler):
    """Tornado's "Uncaught exception" records, printed as the exception and the function that raised it."""

    def emit(self, record: logging.LogRecord) -> None:
        """Print the record's first line and where its exception came from."""
        if record.exc_info:
            error, tb = record.exc_info[1], traceback.extract_tb(record.exc_info[2])
            caught.append(f"{type(error).__name__} in {tb[-2].name} ({tb[-2].filename.split('site-packages/')[-1]})")
            print(f"tornado: {record.getMessage().splitlines()[0]}: {caught[-1]}")


ORIGINAL_KEEP_ALIVE = BokehTornado._keep_alive
BokehTornado._keep_alive = keep_alive_traced  # tracing only: calls Bokeh's own


def free_port() -> int:
    """A free TCP port on loopback."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def main() -> None:
    """Serve one app, open a session with a raw client, break the protocol, stay silent."""
    port = free_port()
    app = Application(FunctionHandler(lambda doc: doc.add_root(Div(text="hi"))))
    server = Server({"/app": app}, io_loop=IOLoop.current(), port=port, address="127.0.0.1",
                    keep_alive_milliseconds=200)
    server.start()
    token = generate_jwt_token(generate_session_id())
    key = base64.b64encode(os.urandom(16)).decode()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write((
        f"GET /app/ws HTTP/1.1\r\nHost: localhost:{port}\r\nOrigin: http://localhost:{port}\r\n"
        f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
        f"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: bokeh, {token}\r\n\r\n"
    ).encode())
    print("handshake:", (await reader.readuntil(b"\r\n\r\n")).split(b"\r\n")[0].decode())
    await asyncio.sleep(0.5)  # the session is made and Bokeh sends its ACK
    # A masked binary frame where Bokeh expects a text header: a protocol error, Bokeh closes.
    payload, mask = b"x", os.urandom(4)
    writer.write(bytes([0x82, 0x80 | len(payload)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))
    await writer.drain()
    await asyncio.sleep(6.5)  # Tornado waits 5 s for the client's close frame, then aborts
    writer.close()
    server.stop()
    print("result:", caught[0] if caught else "no error: on_close closed quietly")


if __name__ == "__main__":
    tornado_log = logging.getLogger("tornado.application")
    tornado_log.addHandler(Uncaught())
    tornado_log.setLevel(logging.ERROR)
    tornado_log.propagate = False
    logging.basicConfig(level=logging.CRITICAL)  # Bokeh's own log lines left out: the printed lines say it
    asyncio.run(main())
