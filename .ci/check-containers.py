#!/usr/bin/env python3
"""Checks what can be checked of the Docker set-up without a Docker engine.

1. docker-compose.yml against the compose schema (`docker-compose config -q`, run by .ci/run).
2. The Dockerfile copies binaries that the workspace builds, strips them, runs as a numeric
   non-root user, pins cargo-chef, and has no `# syntax=` line; .dockerignore keeps `target/`
   out of the build context.
3. Compose: each service's fixed arguments are its entrypoint, so that the README's
   `docker compose --profile bench run --rm bench --quick` appends --quick (resolved here from
   `docker-compose config`, as compose itself would); ports are published on 127.0.0.1 only;
   mock-rates has an admin token and the bench the same; docker-compose.host-network.yml is
   the same stack apart from networking (host network, 127.0.0.1, no service names).
4. Each compose service's entrypoint, environment and health check, run natively against the
   release binaries, with service host names and 0.0.0.0 mapped to 127.0.0.1: mock-rates and
   api must start and turn healthy through their own health-check commands, the environment
   must take effect (html content type, JSON logs), and the documented `run --rm bench
   --quick` must complete against them.

Usage: python3 .ci/check-containers.py [target/release]
"""
import json
import os
import re
import shlex
import subprocess
import sys
import threading
import time
import urllib.request

import yaml

from children import stop

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "target", "release"))
HOSTS = ("mock-rates", "api")
HOST_NETWORK = "docker-compose.host-network.yml"
# The README's form of a quick comparison against the running stack.
QUICK = "docker compose --profile bench run --rm bench --quick"


def fail(message):
    print(f"check-containers: FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def local(value):
    """Maps compose service host names in URLs to loopback."""
    for host in HOSTS:
        value = value.replace(f"http://{host}:", "http://127.0.0.1:")
    return value.replace("0.0.0.0", "127.0.0.1")


def argv(command):
    binary, *args = command
    path = os.path.join(BIN, binary)
    if not os.access(path, os.X_OK):
        fail(f"{binary}: no such binary in {BIN}")
    return [path] + [local(a) for a in args]


def check_dockerfile():
    text = open(os.path.join(ROOT, "Dockerfile")).read()
    copied = set(re.findall(r"target/release/([\w-]+)", text))
    if copied != {"api", "mock-rates", "bench"}:
        fail(f"Dockerfile copies {sorted(copied)}, expected api, mock-rates, bench")
    for binary in copied:
        if not os.access(os.path.join(BIN, binary), os.X_OK):
            fail(f"the Dockerfile copies {binary}, which the build did not produce")
    user = re.search(r"^USER\s+(\d+)(?::(\d+))?\s*$", text, re.M)
    if not user or user.group(1) == "0":
        fail("the runtime stage must run as a numeric non-root USER (uid:gid)")
    if not re.search(r"^CMD\s+\[\"api\"\]", text, re.M):
        fail('the image should start the api by default (CMD ["api"])')
    if re.search(r"^#\s*syntax\s*=", text, re.M):
        fail("a `# syntax=` line makes BuildKit fetch a front-end image; offline builds fail on it")
    chef = re.search(r'ARG CARGO_CHEF_VERSION=(\S+)', text)
    if not chef or not re.search(r'cargo install cargo-chef --locked --version "\$\{CARGO_CHEF_VERSION\}"', text):
        fail("cargo-chef must be installed at a pinned version (ARG CARGO_CHEF_VERSION)")
    strip = re.search(r"\bstrip((?:\s+/out/[\w-]+)+)", text)
    stripped = set(strip.group(1).split()) if strip else set()
    if stripped != {f"/out/{b}" for b in copied}:
        fail(f"the Dockerfile must strip the three binaries it copies (strips {sorted(stripped)})")
    ignored = open(os.path.join(ROOT, ".dockerignore")).read().split()
    if "target/" not in ignored and "target" not in ignored:
        fail(".dockerignore must leave target/ out of the build context")
    print(f"Dockerfile: copies and strips api, mock-rates, bench (all built); USER {user.group(0).split()[1]}; "
          f"CMD api; cargo-chef {chef.group(1)}; no syntax line; .dockerignore leaves target/ out")


def resolved(files):
    """The compose file(s) as compose itself reads them (`docker-compose config`)."""
    command = ["docker-compose"] + [a for f in files for a in ("-f", os.path.join(ROOT, f))] + ["config"]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        fail(f"{' '.join(command)}: {result.stderr}")
    return yaml.safe_load(result.stdout)["services"]


def check_compose(services):
    for name, service in services.items():
        if not service.get("entrypoint") or service.get("command"):
            fail(f"{name}: fixed arguments belong in `entrypoint` (no `command`), so that `run {name} ARGS` appends ARGS")
        for port in service.get("ports", []):
            published = port if isinstance(port, str) else f"{port.get('host_ip', '')}:{port.get('published')}"
            if not published.startswith("127.0.0.1:"):
                fail(f"{name}: publishes {published} on every interface; bind it to 127.0.0.1")
    token = (services["mock-rates"].get("environment") or {}).get("MOCK_RATES_ADMIN_TOKEN")
    if not token:
        fail("mock-rates listens beyond loopback in its container: its admin endpoints need MOCK_RATES_ADMIN_TOKEN")
    if (services["bench"].get("environment") or {}).get("MOCK_RATES_ADMIN_TOKEN") != token:
        fail("the bench must send mock-rates' admin token (the same MOCK_RATES_ADMIN_TOKEN)")
    readme = open(os.path.join(ROOT, "README.md")).read()
    if QUICK not in readme:
        fail(f"the README does not document `{QUICK}`")
    # `run SERVICE ARGS...` replaces the service's command with ARGS; the entrypoint stays.
    words = shlex.split(QUICK)
    service = services[words[words.index("--rm") + 1]]
    argv = service["entrypoint"] + words[words.index("--rm") + 2:]
    if argv[0] != "bench" or argv[-1] != "--quick" or "--api-url" not in argv or "--out" not in argv:
        fail(f"`{QUICK}` resolves to {argv}")
    print(f"compose: `{QUICK}` resolves to `{' '.join(argv)}`; ports on 127.0.0.1 only")

    hosted = resolved([HOST_NETWORK])
    if set(hosted) != set(services):
        fail(f"{HOST_NETWORK}: services {sorted(hosted)}, docker-compose.yml has {sorted(services)}")
    for name, service in hosted.items():
        if service.pop("network_mode", None) != "host" or "ports" in service:
            fail(f"{HOST_NETWORK}: {name} must be on the host's network and publish no ports")
        # Apart from networking, the same service as docker-compose.yml's.
        expected = json.loads(local(json.dumps({k: v for k, v in services[name].items() if k not in ("build", "ports")})))
        if service != expected:
            fail(f"{HOST_NETWORK}: {name} differs from docker-compose.yml beyond networking:\n{service}\n{expected}")
    print(f"{HOST_NETWORK}: the same services on the host network, on 127.0.0.1")
    return argv


def wait_healthy(name, service, process):
    test = service.get("healthcheck", {}).get("test")
    if not test or test[0] != "CMD":
        fail(f"{name}: the health check must be an exec-form CMD using the image's binaries")
    deadline = time.time() + 30
    while time.time() < deadline:
        if process.poll() is not None:
            fail(f"{name}: exited with {process.returncode} before turning healthy")
        if subprocess.run(argv(test[1:]), capture_output=True).returncode == 0:
            print(f"{name}: healthy ({' '.join(test[1:])})")
            return
        time.sleep(0.3)
    fail(f"{name}: not healthy within 30 s")


def start(name, service, stdout=subprocess.DEVNULL):
    env = dict(os.environ)
    env.update({k: local(str(v)) for k, v in (service.get("environment") or {}).items()})
    process = subprocess.Popen(argv(service["entrypoint"]), env=env, stdout=stdout, stderr=subprocess.STDOUT, text=True)
    wait_healthy(name, service, process)
    return process


def main():
    services = resolved(["docker-compose.yml"])
    check_dockerfile()
    quick = check_compose(services)
    for name in ("api", "bench"):
        for dependency, rule in (services[name].get("depends_on") or {}).items():
            if rule.get("condition") != "service_healthy":
                fail(f"{name} must wait for {dependency} to be healthy")
    started = []
    try:
        mock = start("mock-rates", services["mock-rates"])
        started.append(mock)
        with urllib.request.urlopen("http://127.0.0.1:8081/api/live?pairs=EURUSD") as response:
            content_type = response.headers["content-type"]
            body = json.loads(response.read())
        if not content_type.startswith("text/html") or body["code"] != 200:
            fail(f"mock-rates: MOCK_RATES_CONTENT_TYPE=html not in effect ({content_type})")
        print(f"mock-rates: serves rates as {content_type}, as configured")

        api = start("api", services["api"], stdout=subprocess.PIPE)
        started.append(api)
        request = urllib.request.Request(
            "http://127.0.0.1:8080/payments/awc",
            data=b'{"amount":"10","currency":"EUR","target_currency":"JPY"}',
            headers={"content-type": "application/json"},
        )
        with urllib.request.urlopen(request) as response:
            payment = json.loads(response.read())
        if payment.get("client") != "awc":
            fail(f"api: unexpected payment answer {payment}")
        first_log = api.stdout.readline()
        try:
            json.loads(first_log)
        except ValueError:
            fail(f"api: APP__LOG__FORMAT=json not in effect: {first_log!r}")
        # Keep draining its log so the api never blocks on a full pipe.
        threading.Thread(target=lambda: [None for _ in api.stdout], daemon=True).start()
        print("api: converts through mock-rates; logs are JSON, as configured")

        bench_env = dict(os.environ)
        bench_env.update({k: local(str(v)) for k, v in (services["bench"].get("environment") or {}).items()})
        out_flag = quick.index("--out")
        quick[out_flag + 1] = os.path.join(ROOT, "target", "compose-check")
        print(f"bench: {' '.join(local(a) for a in quick)}")
        result = subprocess.run(argv(quick), env=bench_env, timeout=600)
        if result.returncode != 0:
            fail(f"bench: exited with {result.returncode}")
        print("check-containers: OK")
    finally:
        stop(started)


if __name__ == "__main__":
    main()
