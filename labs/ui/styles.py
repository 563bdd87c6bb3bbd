"""CSS for lab pieces.

Panel and Bokeh render each component in its own shadow root, so page-wide CSS does not reach
inside: each piece gets these rules through its ``stylesheets``.
"""

# Inline, because Panel replaces the stylesheets of the Bokeh models it renders.
READOUT_STYLE = (
    "font: 600 1.05rem/1.4 system-ui, sans-serif; padding: 6px 10px; margin: 4px 0; "
    "background: #f3f6fa; border-left: 4px solid #1f6fb2; border-radius: 4px"
)

# Bokeh's own button styles: primary is white on #428bca (3.6:1) and the focus ring a 1px dotted
# #bbbbbd (1.9:1). These reach 7:1 and a 3px ring of 7:1 against white.
CONTROL_CSS = """
.bk-btn-primary { background-color: #1a5a96; border-color: #1a5a96; color: #ffffff; }
.bk-btn-primary:hover:not(:disabled) { background-color: #134a7e; border-color: #134a7e; }
.bk-btn:focus, .bk-btn:focus-visible, select:focus-visible {
  outline: 3px solid #1a5a96; outline-offset: 2px;
}
"""
