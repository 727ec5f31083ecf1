# Cielo gateway image: the `cielo` binary (migrations embedded), the built web app, and the
# Deno that runs Edge Functions (from the npm registry, as `scripts/npm-install.sh` installs it).

FROM node:22-bookworm-slim AS web
WORKDIR /src/frontend
COPY frontend/package.json frontend/package-lock.json ./
RUN npm ci
COPY frontend/ ./
RUN npm run build

FROM node:22-bookworm-slim AS deno
WORKDIR /src/functions/runtime
COPY functions/runtime/package.json functions/runtime/package-lock.json ./
RUN npm ci && cp node_modules/@deno/*/deno /deno

FROM rust:1-bookworm AS gateway
WORKDIR /src
# An image runs on CPUs other than the one that built it: x86-64-v3 (AVX2, every x86-64
# server CPU since 2013-2015), not the builder's own (docs/decisions/0008).
ENV RUSTFLAGS="-C target-cpu=x86-64-v3"
COPY Cargo.toml Cargo.lock rustfmt.toml clippy.toml ./
COPY gateway gateway
COPY realtime realtime
COPY functions functions
COPY bench/Cargo.toml bench/Cargo.toml
COPY bench/src bench/src
COPY sql sql
RUN cargo build --release --locked --bin cielo

FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates curl \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --user-group --home-dir /var/lib/cielo cielo \
 && mkdir -p /var/lib/cielo \
 && chown cielo:cielo /var/lib/cielo
COPY --from=gateway /src/target/release/cielo /usr/local/bin/cielo
COPY --from=web /src/frontend/dist /usr/share/cielo/web
COPY --from=deno /deno /usr/local/bin/deno
USER cielo
WORKDIR /var/lib/cielo
ENV API_HOST=0.0.0.0 \
    API_PORT=54321 \
    DATA_DIR=/var/lib/cielo \
    WEB_DIR=/usr/share/cielo/web \
    DENO_PATH=/usr/local/bin/deno
EXPOSE 54321
ENTRYPOINT ["cielo"]
CMD ["serve"]
