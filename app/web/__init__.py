"""Serving the course: the server, URLs, sessions, health, the page frame and the connection watch."""
