#!/usr/bin/env python3
"""The api against its own OpenAPI document, with requests generated from the document.

Starts the release api (with its embedded mock-rates as the upstream) on a free loopback port
and runs schemathesis against its /openapi.json with every check: each answer's status,
content type, headers and body must be what the document declares, no 5xx, a 405 with an
`Allow` header for every method a path does not serve, requests the document calls invalid
rejected, and valid ones accepted (or refused with a declared 422; see schemathesis.toml).

One worker: with two, hypothesis' lambda-description cache (hypothesis/internal/
lambda_sources.py) raised a KeyError inside schemathesis' coverage phase, a race in the tool,
not an answer of the api.

Usage: python3 .ci/check-openapi.py [target/release] [SECONDS]
"""
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

from children import stop

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "target", "release"))
SECONDS = sys.argv[2] if len(sys.argv) > 2 else "60"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    port = free_port()
    env = dict(os.environ, APP__SERVER__HOST="127.0.0.1", APP__SERVER__PORT=str(port))
    env.pop("APP__RATES__BASE_URL", None)  # the embedded mock-rates
    api = subprocess.Popen([os.path.join(BIN, "api")], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 30
        while True:
            try:
                with urllib.request.urlopen(f"{base}/health/ready", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if api.poll() is not None or time.time() > deadline:
                print("check-openapi: FAIL: the api did not turn ready", file=sys.stderr)
                sys.exit(1)
            time.sleep(0.2)
        command = [
            "schemathesis", "--no-color", "--config-file", os.path.join(ROOT, ".ci", "schemathesis.toml"),
            "run", f"{base}/openapi.json", "--checks", "all", "--max-time", SECONDS, "--workers", "1",
        ]
        print(" ".join(command), flush=True)
        # In a scratch directory: schemathesis leaves a .schemathesis/ folder where it runs.
        with tempfile.TemporaryDirectory() as scratch:
            result = subprocess.run(command, cwd=scratch)
        if result.returncode != 0:
            print("check-openapi: FAIL: schemathesis found answers the document does not declare", file=sys.stderr)
            sys.exit(1)
        print("check-openapi: OK")
    finally:
        stop([api])


if __name__ == "__main__":
    main()
