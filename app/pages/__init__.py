"""One module per page; each exposes ``build() -> panel.viewable.Viewable``, called per session."""
