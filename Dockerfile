# sluiced in a container: build on bookworm with the -dev packages, run on bookworm-slim with
# only the shared libraries.
#
#   docker build -t sluice .
#   docker run -d -p 6379:6379 -v sluice-data:/data sluice \
#     sluiced --bind 0.0.0.0 --dir /data --requirepass change-me

FROM debian:bookworm-slim AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      build-essential cmake ninja-build pkg-config \
      librocksdb-dev libboost-dev libspdlog-dev libjemalloc-dev \
      liblua5.1-0-dev lua-cjson lua-bitop libmsgpack-dev libssl-dev libxxhash-dev liblzf-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN cmake -S . -B /build -G Ninja -DCMAKE_BUILD_TYPE=Release -DSLUICE_BUILD_TESTS=OFF \
 && cmake --build /build --target sluiced -j "$(nproc)" \
 && strip /build/sluiced

FROM debian:bookworm-slim
# Runtime libraries only (lua-cjson, lua-bitop and libmsgpackc2 are the shared objects behind
# the Lua libraries scripts use); redis-tools is for the health check.
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      librocksdb7.8 libspdlog1.10 libfmt9 libjemalloc2 liblua5.1-0 lua-cjson lua-bitop libmsgpackc2 \
      libssl3 liblzf1 \
      redis-tools \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /build/sluiced /usr/local/bin/sluiced
# Fail the image build, not the first start, if a shared library is missing.
RUN ! ldd /usr/local/bin/sluiced | grep 'not found'
RUN useradd --system --user-group --home-dir /data --shell /usr/sbin/nologin sluice \
 && mkdir -p /data \
 && chown sluice:sluice /data
USER sluice
WORKDIR /data
VOLUME /data
EXPOSE 6379
# With a requirepass, export REDISCLI_AUTH=<password> in the container so this check can AUTH.
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD redis-cli -p 6379 ping | grep -q PONG
# bind 0.0.0.0 listens on every interface of the container. Protected mode (on by default)
# refuses clients that are not on loopback while no password is set, so clients from outside
# the container need a requirepass: add `--requirepass <secret>` (or `--protected-mode no` on
# a network you trust).
CMD ["sluiced", "--bind", "0.0.0.0", "--dir", "/data"]
