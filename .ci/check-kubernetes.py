#!/usr/bin/env python3
"""Validates the Kubernetes manifests in deploy/kubernetes offline, without a cluster.

1. Each kustomization renders with `kubectl kustomize` (KUBECTL names another kubectl).
2. Every rendered object validates strictly (unknown fields rejected) against the schemas that
   kubernetes-validate bundles, for the oldest and the newest Kubernetes it knows.
3. What a schema cannot say: each Service selects a workload and names a port it has; each
   http://NAME:PORT in a command or environment is a Service that has that port; every
   container has CPU and memory requests and limits and runs as the image's non-root user; the
   HPA scales the api from two replicas up, on CPU; mock-rates stays at one replica; the bench
   Job runs the compose bench service's fixed arguments; and in the multi-node overlay each
   component refuses the nodes of the other two.
4. Each Deployment's command and environment run natively against the release binaries
   (Service names and 0.0.0.0 mapped to 127.0.0.1), and each of its probes must answer 200,
   as must the bench Job's init container's command.

Usage: python3 .ci/check-kubernetes.py [target/release]
"""
import base64
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

import yaml

from children import stop

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "target", "release"))
MANIFESTS = os.path.join(ROOT, "deploy", "kubernetes")
KUSTOMIZATIONS = ("base", "multi-node")
KUBECTL = os.environ.get("KUBECTL", "kubectl")
SCHEMA_VERSIONS = ("1.25.0", "1.37.0")
URL = re.compile(r"http://([a-z0-9-]+):(\d+)")
COMPONENTS = {"mock-rates": "upstream", "api": "service", "bench": "generator"}


def fail(message):
    print(f"check-kubernetes: FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def render(name):
    result = subprocess.run([KUBECTL, "kustomize", os.path.join(MANIFESTS, name)], capture_output=True, text=True)
    if result.returncode != 0:
        fail(f"{name}: kubectl kustomize failed:\n{result.stderr}")
    if result.stderr.strip():
        fail(f"{name}: kubectl kustomize warned:\n{result.stderr}")
    return result.stdout


def validate(name, text):
    with tempfile.NamedTemporaryFile("w", suffix=f"-{name}.yaml", delete=False) as file:
        file.write(text)
    try:
        for version in SCHEMA_VERSIONS:
            result = subprocess.run(
                ["kubernetes-validate", "--strict", "--quiet", "-k", version, file.name],
                capture_output=True,
                text=True,
            )
            if result.returncode != 0:
                fail(f"{name}: does not validate against Kubernetes {version}:\n{result.stdout}{result.stderr}")
    finally:
        os.unlink(file.name)


def pod_spec(obj):
    return obj["spec"]["template"]["spec"]


def containers(obj, init=True):
    spec = pod_spec(obj)
    return spec.get("containers", []) + (spec.get("initContainers", []) if init else [])


def image_user():
    text = open(os.path.join(ROOT, "Dockerfile")).read()
    match = re.search(r"^USER\s+(\d+)", text, re.M)
    if not match:
        fail("the Dockerfile's USER must be numeric, for runAsNonRoot")
    return int(match.group(1))


def check_objects(name, objects):
    by_kind = {}
    for obj in objects:
        by_kind.setdefault(obj["kind"], {})[obj["metadata"]["name"]] = obj
    workloads = {**by_kind.get("Deployment", {}), **by_kind.get("Job", {})}
    services = by_kind.get("Service", {})
    if set(workloads) != set(COMPONENTS):
        fail(f"{name}: workloads {sorted(workloads)}, expected {sorted(COMPONENTS)}")

    uid = image_user()
    for workload, obj in workloads.items():
        labels = obj["spec"]["template"]["metadata"]["labels"]
        if labels.get("app.kubernetes.io/component") != COMPONENTS[workload]:
            fail(f"{name}: {workload}'s pods must carry component={COMPONENTS[workload]}")
        security = pod_spec(obj).get("securityContext", {})
        if not security.get("runAsNonRoot") or security.get("runAsUser") != uid:
            fail(f"{name}: {workload} must run as non-root uid {uid}, the image's USER")
        for container in containers(obj):
            for bound in ("requests", "limits"):
                given = container.get("resources", {}).get(bound, {})
                if not {"cpu", "memory"} <= set(given):
                    fail(f"{name}: {workload}/{container['name']} has no CPU and memory {bound}")
            if container.get("securityContext", {}).get("allowPrivilegeEscalation") is not False:
                fail(f"{name}: {workload}/{container['name']} must set allowPrivilegeEscalation: false")
            for host, port in URL.findall(" ".join(container.get("command", []) + [str(e.get("value", "")) for e in container.get("env", [])])):
                ports = [p["port"] for p in services.get(host, {}).get("spec", {}).get("ports", [])]
                if int(port) not in ports:
                    fail(f"{name}: {workload}/{container['name']} calls http://{host}:{port}, which no Service offers")

    for service, obj in services.items():
        selector = obj["spec"]["selector"]
        selected = [w for w, o in workloads.items() if selector.items() <= o["spec"]["template"]["metadata"]["labels"].items()]
        if len(selected) != 1 or by_kind["Deployment"].get(selected[0]) is None:
            fail(f"{name}: Service {service} selects {selected}, expected one Deployment")
        named = {p.get("name") for c in containers(workloads[selected[0]], init=False) for p in c.get("ports", [])}
        for port in obj["spec"]["ports"]:
            if port["targetPort"] not in named:
                fail(f"{name}: Service {service} targets port {port['targetPort']}, which {selected[0]} does not name")

    if by_kind["Deployment"]["mock-rates"]["spec"]["replicas"] != 1:
        fail(f"{name}: mock-rates must stay at one replica (its faults and counters are per process)")
    hpas = by_kind.get("HorizontalPodAutoscaler", {})
    if set(hpas) != {"api"}:
        fail(f"{name}: expected one HorizontalPodAutoscaler, for the api, found {sorted(hpas)}")
    hpa = hpas["api"]["spec"]
    metrics = [m["resource"]["name"] for m in hpa.get("metrics", []) if m["type"] == "Resource"]
    if hpa["scaleTargetRef"] != {"apiVersion": "apps/v1", "kind": "Deployment", "name": "api"} or metrics != ["cpu"]:
        fail(f"{name}: the HPA must scale Deployment api on CPU")
    if not 2 <= hpa["minReplicas"] <= hpa["maxReplicas"]:
        fail(f"{name}: the HPA must keep at least two api replicas (min {hpa['minReplicas']}, max {hpa['maxReplicas']})")

    # mock-rates listens beyond loopback in its pod: its admin endpoints need a token, from a
    # Secret, and the bench must send the same one.
    mock_refs = admin_token_refs(containers(workloads["mock-rates"], init=False)[0])
    bench_refs = admin_token_refs(containers(workloads["bench"], init=False)[0])
    if len(mock_refs) != 1 or bench_refs != mock_refs:
        fail(f"{name}: mock-rates needs MOCK_RATES_ADMIN_TOKEN from a Secret, and the bench the same ({mock_refs} / {bench_refs})")
    for ref in mock_refs:
        env_value(by_kind, {"name": "MOCK_RATES_ADMIN_TOKEN", "valueFrom": {"secretKeyRef": ref}})

    compose = yaml.safe_load(open(os.path.join(ROOT, "docker-compose.yml")))
    bench = containers(workloads["bench"], init=False)[0]
    if bench["command"] != compose["services"]["bench"]["entrypoint"]:
        fail(f"{name}: the bench Job runs {bench['command']}, the compose bench service {compose['services']['bench']['entrypoint']}")
    return by_kind, workloads


def check_spread(name, workloads):
    for workload, obj in workloads.items():
        rules = pod_spec(obj).get("affinity", {}).get("podAntiAffinity", {}).get("requiredDuringSchedulingIgnoredDuringExecution", [])
        refused = set()
        for rule in rules:
            if rule.get("topologyKey") != "kubernetes.io/hostname":
                continue
            for expression in rule["labelSelector"].get("matchExpressions", []):
                if expression["key"] == "app.kubernetes.io/component" and expression["operator"] == "In":
                    refused |= set(expression["values"])
        others = set(COMPONENTS.values()) - {COMPONENTS[workload]}
        if refused != others:
            fail(f"{name}: {workload} must refuse nodes running {sorted(others)}, refuses {sorted(refused)}")


def env_value(by_kind, entry):
    """An env entry's value: given, or read from the rendered Secret it names."""
    if "value" in entry:
        return str(entry["value"])
    ref = entry["valueFrom"]["secretKeyRef"]
    secret = by_kind.get("Secret", {}).get(ref["name"])
    if secret is None or ref["key"] not in secret.get("data", {}):
        fail(f"{entry['name']}: no Secret {ref['name']} with key {ref['key']}")
    return base64.b64decode(secret["data"][ref["key"]]).decode()


def admin_token_refs(container):
    return [e["valueFrom"]["secretKeyRef"] for e in container.get("env", []) if e["name"] == "MOCK_RATES_ADMIN_TOKEN" and "valueFrom" in e]


def local(value):
    value = URL.sub(lambda m: f"http://127.0.0.1:{m.group(2)}", value)
    return value.replace("0.0.0.0", "127.0.0.1")


def run_locally(name, by_kind):
    started = []

    def argv(command):
        path = os.path.join(BIN, command[0])
        if not os.access(path, os.X_OK):
            fail(f"{name}: {command[0]}: no such binary in {BIN}")
        return [path] + [local(a) for a in command[1:]]

    def probe(deployment, container, kind, spec, process):
        ports = {p["name"]: p["containerPort"] for p in container.get("ports", [])}
        port = spec["httpGet"]["port"]
        url = f"http://127.0.0.1:{ports.get(port, port)}{spec['httpGet']['path']}"
        deadline = time.time() + spec.get("periodSeconds", 10) * spec.get("failureThreshold", 3)
        while True:
            if process.poll() is not None:
                fail(f"{name}: {deployment} exited with {process.returncode}")
            try:
                with urllib.request.urlopen(url, timeout=2) as response:
                    if response.status == 200:
                        print(f"{name}: {deployment} {kind} probe {spec['httpGet']['path']}: 200")
                        return
            except (urllib.error.URLError, ConnectionError):
                pass
            if time.time() > deadline:
                fail(f"{name}: {deployment}'s {kind} probe {url} did not answer 200 in its failure threshold")
            time.sleep(0.3)

    try:
        for deployment in ("mock-rates", "api"):
            container = by_kind["Deployment"][deployment]["spec"]["template"]["spec"]["containers"][0]
            env = dict(os.environ)
            env.update({e["name"]: local(env_value(by_kind, e)) for e in container.get("env", [])})
            process = subprocess.Popen(argv(container["command"]), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            started.append(process)
            for kind in ("startup", "readiness", "liveness"):
                spec = container.get(f"{kind}Probe")
                if spec is None and kind != "startup":
                    fail(f"{name}: {deployment} has no {kind} probe")
                if spec is not None:
                    probe(deployment, container, kind, spec, process)
        init = by_kind["Job"]["bench"]["spec"]["template"]["spec"]["initContainers"][0]["command"]
        script = init[2]
        commands = re.findall(r"until (.+?); do", script)
        if init[:2] != ["sh", "-c"] or len(commands) != 1:
            fail(f"{name}: the bench's init container should be `sh -c 'until COMMAND; do ...'`")
        if subprocess.run(argv(commands[0].split()), capture_output=True, timeout=10).returncode != 0:
            fail(f"{name}: the bench's init container's command {commands[0]!r} fails against a ready api")
        print(f"{name}: bench waits with `{commands[0]}`, which succeeds against a ready api")
    finally:
        stop(started)


def main():
    version = subprocess.run([KUBECTL, "version", "--client"], capture_output=True, text=True).stdout
    print(" ".join(line.strip() for line in version.splitlines()))
    for name in KUSTOMIZATIONS:
        text = render(name)
        validate(name, text)
        objects = [obj for obj in yaml.safe_load_all(text) if obj]
        print(f"{name}: {len(objects)} objects render and validate strictly against Kubernetes {', '.join(SCHEMA_VERSIONS)}")
        by_kind, workloads = check_objects(name, objects)
        if name == "multi-node":
            check_spread(name, workloads)
            print(f"{name}: generator, service and upstream refuse each other's nodes")
        else:
            run_locally(name, by_kind)
    print("check-kubernetes: OK")


if __name__ == "__main__":
    main()
