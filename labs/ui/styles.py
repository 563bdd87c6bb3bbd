"""CSS for lab pieces.

Panel and Bokeh render each component in its own shadow root, so page-wide CSS does not reach
inside: each piece gets these rules through its ``stylesheets``.
"""

from labs.ui import ASSETS, stylesheet

# An inline style (the file holds declarations only), because Panel replaces the stylesheets of the
# Bokeh models it renders.
READOUT_STYLE = stylesheet(ASSETS / "readout_style.css", compact=True)

READOUT_ROOM_CSS = stylesheet(ASSETS / "readout_room.css")
"""The room a lab's readout keeps (``labs.ui.playback.readout_html``'s ``room``): the longest text it
shows, laid in the same grid cell as the text, hidden, so that the readout is as tall as that text
would be at the page's width now, whatever it shows. Generated content that is hidden is neither
seen nor read, and is not in the element's text."""

# Bokeh's own button styles: primary is white on #428bca (3.6:1) and the focus ring a 1px dotted
# #bbbbbd (1.9:1). These reach 7:1 and a 3px ring of 7:1 against white. Every time-bar control is
# at least 44 px high (WCAG 2.5.5's target size on a phone) and the light buttons have an edge.
CONTROL_CSS = stylesheet(ASSETS / "controls.css")
