"""``python -m app`` serves the course."""

from app.site.server import main

if __name__ == "__main__":  # imported by name (a URL once could), it starts nothing
    main()
