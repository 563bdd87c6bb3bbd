"""``python -m app`` serves the course."""

from app.server import main

main()
