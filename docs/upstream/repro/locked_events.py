"""Panel runs a debounced widget change without the document lock when a click follows within 50 ms.

Stock Panel and Bokeh. A served Panel app: a TextInput whose watcher updates a plain Bokeh ``Div``
(as a callback updating a figure would), and a Button. Bokeh's own Python client stands in for the
browser: it changes the TextInput's value, then sends a ButtonClick.

- Change alone: Panel runs the watcher after its 50 ms debounce, holding the document lock: fine.
- Change, then a click within the debounce: Panel runs the held-back change inside
  ``Syncable._event_coroutine``, which ``async_execute`` schedules with ``nolock``. Setting the Div's
  text then raises in Bokeh's ``ServerSession._document_patched``, and the click's own callback
  never runs.

Run: python locked_events.py (about 5 s). Prints, for each case, what the server's callbacks saw and
the errors the server logged.
"""

import logging
import socket
import time
import warnings

import panel as pn
from bokeh.client import pull_session
from bokeh.events import ButtonClick
from bokeh.models import Button, Div, TextInput

seen: list[str] = []
errors: list[str] = []


class Errors(logging.Handler):
    """Keeps the exception of each error the server logs."""

    def emit(self, record: logging.LogRecord) -> None:
        """Record the exception, or the message's first line."""
        errors.append(repr(record.exc_info[1]) if record.exc_info else record.getMessage().splitlines()[0])


def app() -> pn.Column:
    """A text field whose watcher updates a Bokeh Div, and a button."""
    text, button, div = pn.widgets.TextInput(value="4"), pn.widgets.Button(name="Open"), Div(text="4")

    def on_text(event) -> None:
        seen.append(f"value={event.new}")
        div.text = f"world size {event.new}"  # a plain Bokeh model, as a figure's title or source

    text.param.watch(on_text, "value")
    button.on_click(lambda event: seen.append("click"))
    return pn.Column(text, button, pn.pane.Bokeh(div))


def run(port: int, click: bool) -> None:
    """Open a session, change the text field, optionally click at once, and print what happened."""
    seen.clear()
    errors.clear()
    session = pull_session(url=f"http://127.0.0.1:{port}/app")
    doc = session.document
    doc.select_one({"type": TextInput}).value = "8"  # sent as PATCH-DOC
    if click:
        doc.callbacks.send_event(ButtonClick(doc.select_one({"type": Button})))  # a bokeh_event
    session.request_server_info()  # runs the client's loop until the messages have gone out
    time.sleep(1.0)
    session.close()
    print(f"{'change, then click at once' if click else 'change alone':27s} seen={seen} errors={errors}")


def main() -> None:
    """Serve the app on loopback and run both cases."""
    logging.getLogger().addHandler(Errors(level=logging.ERROR))
    # Bokeh's Python client sends the Button in full with its event (BokehJS sends only its id): the
    # server then warns "reference already known", which has nothing to do with this report.
    warnings.filterwarnings("ignore", message="reference already known")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    origins = [f"127.0.0.1:{port}", f"localhost:{port}"]
    server = pn.serve({"app": app}, port=port, address="127.0.0.1", threaded=True, show=False,
                      websocket_origin=origins)
    time.sleep(1.0)
    run(port, click=False)
    run(port, click=True)
    server.stop()


if __name__ == "__main__":
    main()
