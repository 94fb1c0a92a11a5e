# Builds api, mock-rates and bench in one image. Stages: chef (cargo-chef), planner (the
# dependency recipe), builder (dependencies first, cached while only our code changes), runtime.
# No `# syntax=` line: it would make BuildKit fetch a front-end image before building, and
# nothing here needs one, so offline and mirror-only builds work.

ARG RUST_VERSION=1.95
FROM rust:${RUST_VERSION}-bookworm AS chef
# OpenSSL's headers build the OpenSSL-based TLS backends (native-tls, awc's openssl, libcurl).
RUN apt-get update \
    && apt-get install -y --no-install-recommends libssl-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*
# Pinned, so that a rebuild next month cooks with the same tool.
ARG CARGO_CHEF_VERSION=0.1.78
RUN cargo install cargo-chef --locked --version "${CARGO_CHEF_VERSION}"
WORKDIR /app

FROM chef AS planner
COPY . .
RUN cargo chef prepare --recipe-path recipe.json

FROM chef AS builder
COPY --from=planner /app/recipe.json recipe.json
# Dependencies only: this layer is rebuilt when Cargo.toml/Cargo.lock change, not our code.
# (isahc compiles a bundled libcurl and nghttp2 here with the image's gcc.)
RUN cargo chef cook --release --recipe-path recipe.json
COPY . .
# The api is built on its own and without its default `embedded-mock` feature, so that the
# image's api does not link mock-rates (a test double) and no other package selected in the
# same build can turn the feature back on.
RUN cargo build --release --locked -p mock-rates -p bench \
    && cargo build --release --locked -p api --no-default-features \
    && mkdir -p /out \
    && cp target/release/api target/release/mock-rates target/release/bench /out/ \
    && strip /out/api /out/mock-rates /out/bench

FROM debian:bookworm-slim AS runtime
RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates libssl3 \
    && apt-get clean \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --system --gid 10001 app \
    && useradd --system --uid 10001 --gid 10001 --home-dir /app --create-home app \
    && mkdir /app/results && chown app:app /app/results
WORKDIR /app
COPY --from=builder /out/ /usr/local/bin/
# Numeric, so that the host and Kubernetes (runAsNonRoot) can tell it is not root.
USER 10001:10001
ENV APP__SERVER__HOST=0.0.0.0 \
    APP__SERVER__PORT=8080
EXPOSE 8080 8081
CMD ["api"]
