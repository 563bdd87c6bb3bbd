"""CSS for lab pieces.

Panel and Bokeh render each component in its own shadow root, so page-wide CSS does not reach
inside: each piece gets these rules through its ``stylesheets``.
"""

# Inline, because Panel replaces the stylesheets of the Bokeh models it renders.
READOUT_STYLE = (
    "font: 600 1.05rem/1.4 system-ui, sans-serif; padding: 6px 10px; margin: 4px 0; "
    "background: #f3f6fa; border-left: 4px solid #1f6fb2; border-radius: 4px"
)
