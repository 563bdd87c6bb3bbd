"""deploy/: the nginx template, compose and Kubernetes files, and the make serve-cluster launcher."""

from __future__ import annotations

import contextlib
import http.server
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from bench.lib.ways_of_serving import dockerfile_command
from deploy.cluster import Cluster, ClusterError, find_nginx, process_table, render_site
from devtools.ports import free_ports
from tests.conftest import ROOT, serve
from tests.waiting import poll

DEPLOY = ROOT / "deploy"
CLUSTER = DEPLOY / "cluster.py"


def nginx_or_skip() -> Path:
    """Debian's nginx; a test needing it skips without it, except where browsers are required (CI)."""
    try:
        return find_nginx()
    except ClusterError as error:
        if os.environ.get("OVERLAP_REQUIRE_BROWSER") == "1":
            raise
        pytest.skip(str(error))


def directives(config: str) -> str:
    """The configuration without its comments."""
    return "\n".join(line.split("#", 1)[0] for line in config.splitlines())


def seconds(value: str) -> float:
    number, unit = re.fullmatch(r"(\d+)(ms|s|m|h|d)?", value).groups()
    return int(number) * {"ms": 0.001, "s": 1, None: 1, "m": 60, "h": 3600, "d": 86400}[unit]


def compose() -> dict:
    return yaml.safe_load((DEPLOY / "compose.yaml").read_text())


def kubernetes() -> dict[str, dict]:
    documents = yaml.safe_load_all((DEPLOY / "kubernetes.yaml").read_text())
    return {document["kind"]: document for document in documents}


def test_nginx_balances_by_least_conn_without_stickiness_and_proxies_websockets():
    config = directives((DEPLOY / "nginx.conf").read_text())
    upstream = re.search(r"upstream overlap_lab \{(.*?)\}", config, re.S).group(1)
    assert "least_conn;" in upstream
    for sticky in ("ip_hash", "sticky", "hash ", "random"):
        assert sticky not in config, sticky
    assert re.search(r"map \$http_upgrade \$connection_upgrade \{\s*default upgrade;", config)
    for line in [
        "proxy_http_version 1.1;",
        "proxy_set_header Upgrade $http_upgrade;",
        "proxy_set_header Connection $connection_upgrade;",
        "proxy_set_header Host $http_host;",
        "proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;",
        "proxy_set_header X-Forwarded-Proto $scheme;",
        "gzip on;",
    ]:
        assert line in config, line
    for timeout in ("proxy_read_timeout", "proxy_send_timeout"):
        value = re.search(timeout + r" (\w+);", config).group(1)
        assert seconds(value) >= 3 * 3600, f"{timeout} {value}: shorter than a lecture"
    gzip_types = re.search(r"gzip_types ([^;]+);", config).group(1).split()
    assert {"application/javascript", "text/css", "application/json"} <= set(gzip_types)
    assert re.search(r"location = /healthz \{[^}]*proxy_pass http://overlap_lab;", config)
    # The app's framing headers pass through once (test_make_serve_cluster_gives_embed_from_to_every_app_process)
    for header in ("Content-Security-Policy", "X-Frame-Options"):
        assert header.lower() not in config.lower(), f"nginx.conf hides or repeats {header}; the app sets it"
    assert "proxy_hide_header" not in config and "proxy_ignore_headers" not in config


def test_compose_runs_named_app_services_behind_the_official_nginx():
    services = compose()["services"]
    apps = {name: service for name, service in services.items() if name not in ("nginx", "postgres")}
    assert sorted(apps) == ["app1", "app2"]
    for service in apps.values():
        assert (DEPLOY / service["build"]["context"] / service["build"].get("dockerfile", "Dockerfile")).is_file()
        origin = service["environment"]["ALLOW_WEBSOCKET_ORIGIN"]
        assert origin and "localhost:8080" in origin  # the published port by default, overridable
        embed_from = service["environment"]["EMBED_FROM"]
        assert embed_from == "${OVERLAP_EMBED_FROM:-*}"  # any site may frame /embed/<lab> by default, overridable
        check = " ".join(service["healthcheck"]["test"])
        assert "/healthz" in check and "urllib" in check and "curl" not in check
        # one PostgreSQL for the class, shared by every app container, with one instructor token
        assert service["environment"]["CLASS_DB"].startswith("postgresql+psycopg://overlap:")
        assert "@postgres:5432/overlap" in service["environment"]["CLASS_DB"]
        assert service["environment"]["INSTRUCTOR_TOKEN"].startswith("${INSTRUCTOR_TOKEN:?")
        assert service["environment"]["BOKEH_SECRET_KEY"].startswith("${OVERLAP_SESSION_KEY:?")  # one for all
        assert service["environment"]["USE_XHEADERS"] == "1"
        assert service["depends_on"] == {"postgres": {"condition": "service_healthy"}}
    database = services["postgres"]
    assert database["image"].startswith("postgres:") and "pg_isready" in database["healthcheck"]["test"]
    assert database["environment"]["POSTGRES_DB"] == "overlap" and "class-db" in compose()["volumes"]
    nginx = services["nginx"]
    assert nginx["image"].startswith("nginx:")
    assert "./nginx.conf:/etc/nginx/templates/default.conf.template:ro" in nginx["volumes"]
    upstreams = nginx["environment"]["NGINX_UPSTREAM_SERVERS"]
    assert re.findall(r"server (\w+):5006;", upstreams) == sorted(apps)
    assert nginx["depends_on"] == {name: {"condition": "service_healthy"} for name in apps}
    assert nginx["environment"]["NGINX_CACHE_DIR"].startswith("/var/cache/nginx/")  # the image has its parent
    site = render_site(["80"], [f"{name}:5006" for name in apps], nginx["environment"]["NGINX_CACHE_DIR"])
    assert "${" not in site and "server app1:5006;" in site


@pytest.mark.parametrize(("status", "healthy"), [(200, True), (503, False)])
def test_compose_healthcheck_command_reads_healthz(status, healthy):
    class Health(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - the handler's name is fixed by http.server
            self.send_response(status if self.path == "/healthz" else 404)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Health)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        command = compose()["services"]["app1"]["healthcheck"]["test"]
        assert command[:3] == ["CMD", "python", "-c"]
        env = {**os.environ, "PORT": str(server.server_address[1])}
        result = subprocess.run([sys.executable, "-c", command[3]], env=env, capture_output=True, timeout=20)
        assert (result.returncode == 0) == healthy, result.stderr
    finally:
        server.shutdown()
        server.server_close()


def test_kubernetes_deployment_probes_healthz_behind_an_ingress_without_affinity():
    from app.site.server import parse_args
    from app.web.frame_headers import parse_origins

    objects = kubernetes()
    assert sorted(objects) == ["Deployment", "Ingress", "Service"]
    deployment, service, ingress = objects["Deployment"], objects["Service"], objects["Ingress"]
    assert deployment["spec"]["replicas"] == 3
    pod = deployment["spec"]["template"]
    (container,) = pod["spec"]["containers"]
    assert container["ports"][0]["containerPort"] == 5006
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        assert container[probe]["httpGet"] == {"path": "/healthz", "port": 5006}, probe
    assert container["resources"]["requests"]["cpu"] and container["resources"]["requests"]["memory"]
    assert container["resources"]["limits"]["memory"]
    args = parse_args(container["args"])
    assert (args.port, args.address, args.unused_session_lifetime) == (5006, "0.0.0.0", 15)
    env = {item["name"]: item["value"] for item in container["env"] if "value" in item}
    secrets = {item["name"]: item["valueFrom"]["secretKeyRef"] for item in container["env"] if "valueFrom" in item}
    assert set(secrets) == {"CLASS_DB", "INSTRUCTOR_TOKEN", "BOKEH_SECRET_KEY"}  # secrets from Secrets
    class_secrets = [secrets["CLASS_DB"], secrets["INSTRUCTOR_TOKEN"]]
    assert all(ref["name"] == "overlap-lab-class" and ref["optional"] for ref in class_secrets)
    # every replica signs sessions with one key: required, since no affinity keeps a student on one replica
    assert secrets["BOKEH_SECRET_KEY"] == {"name": "overlap-lab-sessions", "key": "key"}
    assert env["USE_XHEADERS"] == "1"
    (rule,) = ingress["spec"]["rules"]
    assert env["ALLOW_WEBSOCKET_ORIGIN"] == rule["host"]
    assert parse_origins(env["EMBED_FROM"]) == "*"  # the sites that may frame /embed/<lab>: any, until set

    assert service["spec"]["selector"].items() <= pod["metadata"]["labels"].items()
    assert service["spec"].get("sessionAffinity", "None") == "None"
    (port,) = service["spec"]["ports"]
    assert port["targetPort"] == 5006
    backend = rule["http"]["paths"][0]["backend"]["service"]
    assert backend["name"] == service["metadata"]["name"] and backend["port"]["name"] == port["name"]
    annotations = ingress["metadata"]["annotations"]
    assert annotations["nginx.ingress.kubernetes.io/proxy-read-timeout"] == "10800"
    assert annotations["nginx.ingress.kubernetes.io/proxy-send-timeout"] == "10800"
    assert not [key for key in annotations if "affinity" in key or "upstream-hash" in key]


def test_the_launcher_config_passes_nginx_t(tmp_path):
    nginx = nginx_or_skip()
    port, *apps = free_ports(3)
    cluster = Cluster(port=port, app_ports=apps, nginx=nginx)
    config = cluster.write_config(tmp_path).read_text()
    assert "${" not in config and "daemon off;" in config
    assert f"server 127.0.0.1:{apps[0]}; server 127.0.0.1:{apps[1]};" in config
    tested = subprocess.run(cluster.nginx_command(nginx, tmp_path, "-t"), capture_output=True, text=True)
    assert tested.returncode == 0, tested.stderr
    assert "test is successful" in tested.stderr


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(CLUSTER), *args], capture_output=True, text=True, timeout=30)


def test_without_nginx_the_launcher_says_how_to_install_it():
    port, *apps = free_ports(3)
    result = run_cli("--nginx", "/nonexistent/nginx", "--port", str(port), "--app-ports", ",".join(map(str, apps)))
    assert result.returncode != 0
    assert result.stdout == ""
    assert len(result.stderr.splitlines()) == 1 and "apt-get install nginx" in result.stderr


@pytest.mark.parametrize(
    "args",
    [["--port", "0"], ["--port", "70000"], ["--app-ports", "5007,abc"], ["--port", "5007", "--app-ports", "5007,5008"]],
)
def test_a_bad_port_is_one_line_and_a_non_zero_exit(args):
    result = run_cli("--nginx", "/nonexistent/nginx", *args)
    assert result.returncode != 0
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert "port" in result.stderr


@pytest.mark.parametrize("which", ["nginx", "app"])
def test_a_port_in_use_is_found_before_anything_starts(which):
    port, *apps = free_ports(3)
    taken = port if which == "nginx" else apps[1]
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", taken))
        holder.listen()
        result = run_cli("--port", str(port), "--app-ports", ",".join(map(str, apps)))
    assert result.returncode != 0
    assert result.stderr.splitlines() == [
        f"deploy/cluster.py: port {taken} on 127.0.0.1 is in use; stop what uses it or pick other ports"
    ]


def test_a_process_dying_during_start_up_stops_all_the_others(tmp_path):
    nginx = nginx_or_skip()
    port, *apps = free_ports(3)
    fake = tmp_path / "python"
    fake.write_text(f'#!/bin/sh\ncase " $* " in *" --port {apps[1]} "*) exit 3;; esac\nexec sleep 60\n')
    fake.chmod(0o755)
    cluster = Cluster(port=port, app_ports=apps, nginx=nginx, python=fake, log=tmp_path / "log", start_timeout=30)
    with pytest.raises(ClusterError, match=f"app on port {apps[1]} exited with status 3 while starting"):
        cluster.start()
    assert all(process.returncode is not None for process in cluster.processes.values())
    assert len(cluster.processes) == 3 and cluster.pids() == []
    assert cluster.directory is None


def descendants(pid: int) -> set[int]:
    parents = {child: parent for child, (parent, _) in process_table().items()}
    found, todo = set(), [pid]
    while todo:
        parent_pid = todo.pop()
        children = [child for child, parent in parents.items() if parent == parent_pid]
        found.update(children)
        todo += children
    return found


@dataclass
class Launched:
    """``deploy/cluster.py`` running in the background, serving."""

    launcher: subprocess.Popen
    port: int
    apps: list[int]
    output: Path


@contextlib.contextmanager
def launched(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> Iterator[Launched]:
    """Run the launcher as make serve-cluster does, on free ports; yield once it prints its URL.

    The body stops it (a signal); if the body fails first, it is stopped here.
    """
    port, *apps = free_ports(3)
    output = tmp_path / "output"
    with output.open("w") as sink:
        launcher = subprocess.Popen(
            [sys.executable, str(CLUSTER), "--port", str(port), "--app-ports", ",".join(map(str, apps)), *args],
            stdout=sink,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # a terminal's Ctrl-C reaches its foreground process group
            env=env,
        )
    try:
        poll(
            lambda: f"Overlap Lab: http://localhost:{port}" in output.read_text() or launcher.poll() is not None,
            what="the launcher printing its URL",
        )
        assert launcher.poll() is None, output.read_text()
        yield Launched(launcher, port, apps, output)
    finally:
        if launcher.poll() is None:  # the test failed before the launcher stopped: stop it, then insist
            os.killpg(launcher.pid, signal.SIGTERM)
            try:
                launcher.wait(timeout=20)
            except subprocess.TimeoutExpired:
                launcher.kill()
                launcher.wait()


@pytest.mark.parametrize("stop_with", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_make_serve_cluster_serves_until_a_signal_and_leaves_nothing_running(tmp_path, stop_with):
    nginx_or_skip()
    with launched(tmp_path) as cluster:
        children = descendants(cluster.launcher.pid)
        assert len(children) >= 4, children  # two apps, nginx's master and its worker
        os.killpg(cluster.launcher.pid, stop_with)
        assert cluster.launcher.wait(timeout=20) == 0, cluster.output.read_text()
    assert children.isdisjoint(process_table())
    assert "Traceback" not in cluster.output.read_text()


_NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def frame_policies(url: str) -> list[str]:
    """The ``frame-ancestors`` directive of every ``Content-Security-Policy`` header of the answer to ``GET url``."""
    with _NO_PROXY.open(url, timeout=30) as reply:
        assert reply.status == 200, url
        policies = reply.headers.get_all("Content-Security-Policy") or []
    return [
        directive.strip()
        for policy in policies
        for directive in policy.split(";")
        if directive.strip().startswith("frame-ancestors")
    ]


@pytest.mark.parametrize("how", ["--embed-from", "EMBED_FROM"])
def test_make_serve_cluster_gives_embed_from_to_every_app_process(tmp_path, how):
    """``--embed-from`` or ``EMBED_FROM`` reaches each app process, and its header reaches the browser through nginx."""
    nginx_or_skip()
    origins = "https://course.example.edu, https://lms.example.edu"
    env = {name: value for name, value in os.environ.items() if name != "EMBED_FROM"}
    args = [how, origins] if how.startswith("--") else []
    if not args:
        env[how] = origins
    with launched(tmp_path, *args, env=env) as cluster:
        expected = ["frame-ancestors https://course.example.edu https://lms.example.edu"]
        for port in (cluster.port, *cluster.apps):  # nginx, and each process directly
            assert frame_policies(f"http://127.0.0.1:{port}/embed/queue") == expected, port
        os.killpg(cluster.launcher.pid, signal.SIGTERM)
        assert cluster.launcher.wait(timeout=20) == 0, cluster.output.read_text()
    assert "Traceback" not in cluster.output.read_text()


def test_the_containers_command_takes_embed_from_as_compose_and_kubernetes_set_it(tmp_path):
    """The Dockerfile's CMD with its ENV, and ``EMBED_FROM`` as the deploy files give it to each container."""
    command, env = dockerfile_command()
    command = [sys.executable if part == "python" else part for part in command]
    kubernetes = next(
        item["value"]
        for document in yaml.safe_load_all((DEPLOY / "kubernetes.yaml").read_text())
        if document and document.get("kind") == "Deployment"
        for container in document["spec"]["template"]["spec"]["containers"]
        for item in container.get("env", [])
        if item["name"] == "EMBED_FROM"
    )
    origins = "https://course.example.edu,https://lms.example.edu"  # as OVERLAP_EMBED_FROM would fill compose's
    named = origins.replace(",", " ")
    for given, expected, page in (  # a whole page: the course itself and the sites named, never any site
        (kubernetes, "frame-ancestors *", "frame-ancestors 'self'"),
        (origins, f"frame-ancestors {named}", f"frame-ancestors 'self' {named}"),
    ):
        port = free_ports(1)[0]
        server = serve(
            command,
            port,
            tmp_path / "container.log",
            env={**env, "PORT": str(port), "ADDRESS": "127.0.0.1", "EMBED_FROM": given},
        )
        try:
            assert frame_policies(f"{server.url}/embed/queue") == [expected]
            assert frame_policies(f"{server.url}/queue") == [page]
        finally:
            server.process.terminate()
            server.process.wait(timeout=10)


def _app_pid(launcher_pid: int, port: int) -> int:
    """The pid of the launcher's ``python -m app --port <port>``."""
    for pid in descendants(launcher_pid):
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"app" in argv and str(port).encode() in argv:
            return pid
    raise AssertionError(f"no app process on port {port}")


def _answers(url: str) -> int:
    try:
        with urllib.request.build_opener(urllib.request.ProxyHandler({})).open(url, timeout=30) as reply:
            return reply.status
    except urllib.error.HTTPError as error:
        return error.code
    except OSError:
        return 0


def test_an_app_process_that_dies_while_serving_is_started_again_and_the_rest_go_on(tmp_path):
    """One process ending (an out-of-memory kill, a crash) never takes the lecture down."""
    nginx_or_skip()
    with launched(tmp_path) as cluster:
        first = _app_pid(cluster.launcher.pid, cluster.apps[0])
        os.kill(first, signal.SIGKILL)
        poll(lambda: "starting it again" in cluster.output.read_text(), what="the launcher restarting the app")
        assert cluster.launcher.poll() is None, cluster.output.read_text()
        assert _answers(f"http://127.0.0.1:{cluster.apps[1]}/healthz") == 200  # the other never stopped
        poll(lambda: _answers(f"http://127.0.0.1:{cluster.apps[0]}/healthz") == 200, what="the new process ready")
        assert _app_pid(cluster.launcher.pid, cluster.apps[0]) != first
        # nothing a URL names can end a process now (security review v6, C1)
        assert _answers(f"http://localhost:{cluster.port}/components/venv.__main__/x/_css/a") == 404
        assert _answers(f"http://localhost:{cluster.port}/lesson?id=overlap") == 200
        os.killpg(cluster.launcher.pid, signal.SIGTERM)
        assert cluster.launcher.wait(timeout=20) == 0, cluster.output.read_text()
    output = cluster.output.read_text()
    assert f"app on port {cluster.apps[0]} exited with status -9 while serving; starting it again" in output


def test_an_app_process_that_keeps_dying_stops_the_cluster(tmp_path):
    """Started again five times within a minute, the sixth exit stops the cluster instead of looping."""
    cluster = Cluster(port=1, app_ports=[2], log=tmp_path / "log")
    cluster._sink = (tmp_path / "log").open("ab")
    try:
        cluster._spawn("app on port 2", ["sh", "-c", "exit 7"])
        for restarted in range(5):
            cluster.processes["app on port 2"].wait()
            assert cluster.restart_exited_apps() == [
                "app on port 2 exited with status 7 while serving; starting it again"
            ]
            assert len(cluster.restarts["app on port 2"]) == restarted + 1
        cluster.processes["app on port 2"].wait()
        with pytest.raises(ClusterError, match="app on port 2 exited 6 times within 60 s .last status 7.; stopping"):
            cluster.restart_exited_apps()
    finally:
        cluster.stop()


def test_nginx_exiting_stops_the_cluster(tmp_path):
    cluster = Cluster(port=1, app_ports=[2], log=tmp_path / "log")
    cluster._sink = (tmp_path / "log").open("ab")
    try:
        cluster._spawn("nginx on port 1", ["sh", "-c", "exit 1"])
        cluster.processes["nginx on port 1"].wait()
        with pytest.raises(ClusterError, match="nginx on port 1 exited with status 1 while serving"):
            cluster.restart_exited_apps()
    finally:
        cluster.stop()
