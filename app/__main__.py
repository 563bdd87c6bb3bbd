"""``python -m app`` serves the course."""

from app.web.server import main

main()
