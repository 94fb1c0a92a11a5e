#!/usr/bin/env bash
# An independent HTTPS upstream for `bench --upstream-url`: Debian's nginx on loopback serving
# a fixed Free Forex answer at /api/live over HTTP/1.1 and HTTP/2 (ALPN), with a CA made here.
#
#   deploy/nginx/upstream.sh start DIR [PORT]   # prints the URL and the CA file, then returns
#   deploy/nginx/upstream.sh stop DIR
#
# Then (docs/upstream-url.md says what runs against it and what is not measured):
#   cargo run --release -p bench -- --upstream-url https://localhost:PORT --ca-file DIR/ca.pem
# Needs nginx (apt-get install nginx) and openssl. Only loopback is used.
set -euo pipefail

command=${1:-}
dir=${2:-}
if [ -z "$command" ] || [ -z "$dir" ]; then
  sed -n '2,10p' "$0" >&2
  exit 2
fi

case "$command" in
start)
  port=${3:-8443}
  command -v nginx >/dev/null || { echo "nginx is not installed (apt-get install nginx)" >&2; exit 1; }
  mkdir -p "$dir/logs"
  dir=$(cd "$dir" && pwd)
  # A CA, and a certificate for localhost and 127.0.0.1 that it signs.
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 30 \
    -keyout "$dir/ca.key" -out "$dir/ca.pem" -subj "/CN=rest-libraries upstream CA" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign" \
    2>/dev/null
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
    -keyout "$dir/server.key" -out "$dir/server.csr" -subj "/CN=localhost" 2>/dev/null
  printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n' \
    > "$dir/server.ext"
  openssl x509 -req -in "$dir/server.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" \
    -CAcreateserial -days 30 -extfile "$dir/server.ext" -out "$dir/server.pem" 2>/dev/null
  # The pairs every payment of the bench asks for (EURUSD, EURGBP, USDJPY); the adapters read
  # the ones they asked for and ignore the rest.
  now=$(date +%s)
  cat > "$dir/nginx.conf" <<CONF
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/logs/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  keepalive_timeout 75s;
  keepalive_requests 1000000;
  server {
    # "listen ... http2" is what Debian 12's nginx 1.22 reads (1.25 moved it to "http2 on").
    listen 127.0.0.1:$port ssl http2;
    ssl_certificate $dir/server.pem;
    ssl_certificate_key $dir/server.key;
    ssl_protocols TLSv1.2 TLSv1.3;
    location = /api/live {
      default_type application/json;
      return 200 '{"rates":{"EURUSD":{"rate":1.16025,"timestamp":$now},"EURGBP":{"rate":0.87631,"timestamp":$now},"USDJPY":{"rate":156.4295,"timestamp":$now}},"code":200}';
    }
  }
}
CONF
  nginx -c "$dir/nginx.conf" -p "$dir"
  echo "upstream: https://localhost:$port (CA: $dir/ca.pem; nginx pid $(cat "$dir/nginx.pid"))"
  ;;
stop)
  if [ -f "$dir/nginx.pid" ]; then
    kill "$(cat "$dir/nginx.pid")"
    rm -f "$dir/nginx.pid"
  fi
  ;;
*)
  echo "unknown command $command: start or stop" >&2
  exit 2
  ;;
esac
