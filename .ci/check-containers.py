#!/usr/bin/env python3
"""Checks what can be checked of the Docker set-up without a Docker engine.

1. docker-compose.yml against the compose schema (`docker-compose config -q`, run by .ci/run).
2. The Dockerfile copies binaries that the workspace builds, and runs as a non-root user.
3. Each compose service's command, environment and health check, run natively against the
   release binaries, with service host names mapped to 127.0.0.1: mock-rates and api must
   start and turn healthy through their own health-check commands, the environment must take
   effect (html content type, JSON logs), and the bench service's command must complete a
   --quick run against them.

Usage: python3 .ci/check-containers.py [target/release]
"""
import json
import os
import re
import subprocess
import sys
import threading
import time
import urllib.request

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "target", "release"))
HOSTS = ("mock-rates", "api")


def fail(message):
    print(f"check-containers: FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def local(value):
    """Maps compose service host names in URLs to loopback."""
    for host in HOSTS:
        value = value.replace(f"http://{host}:", "http://127.0.0.1:")
    return value


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
    if not re.search(r"^USER\s+(?!root)\w+", text, re.M):
        fail("the runtime stage must run as a non-root USER")
    if not re.search(r"^CMD\s+\[\"api\"\]", text, re.M):
        fail('the image should start the api by default (CMD ["api"])')
    print("Dockerfile: copies api, mock-rates, bench (all built); non-root user; CMD api")


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
    process = subprocess.Popen(argv(service["command"]), env=env, stdout=stdout, stderr=subprocess.STDOUT, text=True)
    wait_healthy(name, service, process)
    return process


def main():
    compose = yaml.safe_load(open(os.path.join(ROOT, "docker-compose.yml")))
    services = compose["services"]
    check_dockerfile()
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

        command = services["bench"]["command"]
        out_flag = command.index("--out")
        quick = command[:out_flag] + ["--out", os.path.join(ROOT, "target", "compose-check")] + command[out_flag + 2:] + ["--quick"]
        print(f"bench: {' '.join(local(a) for a in quick)}")
        result = subprocess.run(argv(quick), timeout=600)
        if result.returncode != 0:
            fail(f"bench: exited with {result.returncode}")
        print("check-containers: OK")
    finally:
        for process in started:
            process.terminate()
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()


if __name__ == "__main__":
    main()
