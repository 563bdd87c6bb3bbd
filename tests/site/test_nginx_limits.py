"""deploy/nginx.conf's limits per client address: the shipped figures, and a real nginx refusing what goes beyond.

The figures are sized for a lecture hall of 300 behind one NAT address (docs/hosting.md, "Floods").
A real nginx runs the configuration ``make serve-cluster`` renders (deploy/cluster.py), in front of a
small HTTP server standing in for the app, with the same directives at figures small enough to pass
in a few requests: a burst past the rate gets 429 with ``Retry-After`` and a line to read, so do
connections past the limit, and requests from this machine are not limited.
"""

from __future__ import annotations

import re
import subprocess
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from deploy.cluster import Cluster, render_site
from devtools.ports import free_ports
from tests.site.test_deploy import directives, nginx_or_skip
from tests.site.test_health import own_address
from tests.waiting import poll

OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def site() -> str:
    return directives(render_site(["127.0.0.1:8080"], ["127.0.0.1:5007"]))


def locations(config: str) -> dict[str, str]:
    """Each ``location`` block's body, by its pattern."""
    return {m.group(1).strip(): m.group(2) for m in re.finditer(r"location\s+([^{]+)\{([^}]*)\}", config)}


def test_the_shipped_config_limits_requests_and_connections_per_address():
    config = site()
    assert re.search(r"limit_req_zone \$overlap_client zone=overlap_requests:10m rate=10r/s;", config)
    assert re.search(r"limit_conn_zone \$overlap_client zone=overlap_connections:10m;", config)
    assert re.search(r"map \$overlap_local \$overlap_client \{\s*1 \"\";\s*0 \$binary_remote_addr;", config)
    assert re.search(r"geo \$overlap_local \{[^}]*127\.0\.0\.0/8 1;[^}]*::1\s+1;", config)
    assert "limit_conn overlap_connections 700;" in config
    assert "limit_req_status 429;" in config and "limit_conn_status 429;" in config
    assert "limit_req_log_level warn;" in config and "limit_conn_log_level warn;" in config
    blocks = locations(config)
    for place in ("/", "= /healthz"):
        assert "limit_req zone=overlap_requests burst=600 nodelay;" in blocks[place], place
    assert "limit_req" not in blocks["/static/"]  # cached here: a hit costs the apps nothing
    assert "add_header Retry-After 5 always;" in blocks["@too_many_requests"]
    assert 'return 429 "Too many requests from your address at once; try again in a few seconds.\\n";' in config


def test_a_hall_of_300_behind_one_address_fits_the_figures():
    """The hall opening a page in the same second is 600 requests (a page and a websocket each) and 300
    connections held; a second tab each is 600 more connections. The figures are read from the config."""
    config = site()
    rate = int(re.search(r"rate=(\d+)r/s", config).group(1))
    burst = int(re.search(r"burst=(\d+) nodelay", config).group(1))
    connections = int(re.search(r"limit_conn overlap_connections (\d+);", config).group(1))
    hall = 300
    assert 1 + burst >= 2 * hall  # everyone's page and websocket in the same second
    assert rate * 60 >= 2 * hall  # and the whole hall moving to another page within each minute after
    assert connections >= 2 * hall + 100  # a tab and a second tab each, and 100 requests in flight


# -- a real nginx --------------------------------------------------------------------------------


class Upstream(BaseHTTPRequestHandler):
    """Stands in for an app process: ``/static/hold/...`` answers once released, anything else at once."""

    held = 0
    release = threading.Event()
    lock = threading.Lock()

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        if self.path.startswith("/static/hold/"):
            with Upstream.lock:
                Upstream.held += 1
            Upstream.release.wait(timeout=120)
        body = b"ok\n"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@dataclass
class Limited:
    url: str  # nginx, reached from this machine's own non-loopback address
    local: str  # the same nginx, reached over loopback
    logs: Path  # nginx's prefix, where its error.log is


@pytest.fixture
def limited(tmp_path: Path) -> Iterator[Limited]:
    """nginx as cluster.py configures it, with the rate at 1 a minute, a burst of 3 and 2 connections an address."""
    nginx = nginx_or_skip()
    address = own_address()
    if address is None:
        pytest.skip("this machine has no address but loopback to make a request that is not local")
    port, upstream_port = free_ports(2)
    upstream = ThreadingHTTPServer(("127.0.0.1", upstream_port), Upstream)
    Upstream.held, Upstream.release = 0, threading.Event()
    threading.Thread(target=upstream.serve_forever, daemon=True).start()
    cluster = Cluster(port=port, app_ports=[upstream_port], nginx=nginx)
    cluster.listen = ["127.0.0.1", address]
    path = cluster.write_config(tmp_path)
    config = path.read_text()
    small = config.replace("rate=10r/s", "rate=1r/m").replace("burst=600", "burst=3")
    small = small.replace("limit_conn overlap_connections 700;", "limit_conn overlap_connections 2;")
    assert small.count("rate=1r/m") == 1 and small.count("burst=3 ") == 2 and "connections 2;" in small
    path.write_text(small)
    with (tmp_path / "stderr.log").open("wb") as sink:
        process = subprocess.Popen(cluster.nginx_command(nginx, tmp_path), stderr=sink)
    try:
        poll(lambda: answer(f"http://127.0.0.1:{port}/healthz")[0] == 200, what="nginx answering")
        yield Limited(url=f"http://{address}:{port}", local=f"http://127.0.0.1:{port}", logs=tmp_path)
    finally:
        Upstream.release.set()
        process.terminate()
        process.wait(timeout=20)
        upstream.shutdown()
        upstream.server_close()


def answer(url: str) -> tuple[int, dict, str]:
    try:
        with OPENER.open(url, timeout=30) as reply:
            return reply.status, dict(reply.headers), reply.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read().decode()
    except OSError:
        return 0, {}, ""


def test_a_burst_past_the_rate_gets_429_with_a_line_to_read(limited):
    replies = [answer(f"{limited.url}/lesson?n={n}") for n in range(8)]
    statuses = [status for status, _, _ in replies]
    assert statuses[0] == 200 and 429 in statuses and set(statuses) == {200, 429}, statuses
    first_refused = statuses.index(429)
    assert all(status == 429 for status in statuses[first_refused:]), statuses  # no refill in between
    _, headers, body = replies[first_refused]
    assert headers["Retry-After"] == "5"
    assert "try again in a few seconds" in body
    assert "limiting requests" in (limited.logs / "error.log").read_text()  # logged, at warn


def test_requests_from_this_machine_are_not_limited(limited):
    assert [answer(f"{limited.local}/lesson?n={n}")[0] for n in range(8)] == [200] * 8


def test_connections_past_the_limit_get_429(limited):
    holders = [threading.Thread(target=answer, args=(f"{limited.url}/static/hold/{n}",)) for n in range(2)]
    for holder in holders:
        holder.start()
    poll(lambda: Upstream.held == 2, what="two requests held open")
    status, headers, body = answer(f"{limited.url}/static/hold/third")
    assert status == 429 and headers["Retry-After"] == "5" and "try again" in body
    Upstream.release.set()
    for holder in holders:
        holder.join(timeout=30)
    assert answer(f"{limited.url}/static/another")[0] == 200  # the connections are free again
