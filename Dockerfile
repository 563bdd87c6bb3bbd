# The hosted course page: the same app as `make serve`, for a whole class.
#   docker build -t overlap-lab .
#   docker run -p 5006:5006 -e ALLOW_WEBSOCKET_ORIGIN=course.example.org -e EMBED_FROM=https://lms.example.edu overlap-lab
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PORT=5006 \
    ADDRESS=0.0.0.0

WORKDIR /srv/overlap-lab
COPY pyproject.toml README.md ./
COPY app ./app
COPY labs ./labs
COPY content ./content
RUN pip install -e . \
    && useradd --system --uid 10001 --home-dir /srv/overlap-lab course \
    && chown -R course /srv/overlap-lab

USER course
EXPOSE 5006

# ALLOW_WEBSOCKET_ORIGIN: comma-separated host[:port] list the browsers use to reach the server
# (the public host name behind a proxy). Without it, localhost:5006 and 127.0.0.1:5006 may connect.
# EMBED_FROM: the course sites (origins, separated by spaces or commas) that may show /embed/<lab>
# in a frame. Without it, any site may (*).
CMD ["python", "-m", "app"]
