"""The baseline for bench/session_cost.py: a bare Panel page showing one lesson's Markdown.

Served with ``panel serve bench/bare_lesson.py``; never part of the app. The page is what a
minimal course page would be: the same ``BootstrapTemplate`` as the app's frame, the lesson's title
and its whole Markdown source in one ``pn.pane.Markdown``, built per session the usual way.
"""

import panel as pn

from app.course.library import lessons, query_param

slug = query_param("id") or "overlap"
lesson = next(item for item in lessons() if item.slug == slug)
template = pn.template.BootstrapTemplate(title=lesson.title)
template.main.append(pn.pane.Markdown(lesson.path.read_text(encoding="utf-8"), sizing_mode="stretch_width"))
template.servable()
