"""``python -m app`` serves the course."""

from app.site.server import main

main()
