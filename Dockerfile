# syntax=docker/dockerfile:1
# Seckill Lab: one image with both binaries. `shop serve` is the default
# command (a shop replica); the agents of docker-compose.yml run `loadtest
# agent` from the same image.
#
#   docker build -t seckill-lab .
#   docker compose up        (or docker-compose up: see docker-compose.yml)

# ---- build --------------------------------------------------------------
FROM golang:1.26 AS build
WORKDIR /src
# Modules first: this layer stays cached until go.mod or go.sum change.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# Static binaries (no cgo): the runtime image needs no libc of a given version.
ENV CGO_ENABLED=0
RUN go build -trimpath -ldflags="-s -w" -o /out/shop ./cmd/shop \
 && go build -trimpath -ldflags="-s -w" -o /out/loadtest ./loadtest

# ---- runtime ------------------------------------------------------------
# Debian slim rather than scratch: bash serves the compose health check
# (/dev/tcp, no curl needed) and a shell helps when debugging a replica.
FROM debian:bookworm-slim
COPY --from=build /out/shop /out/loadtest /usr/local/bin/
# Not root: the replica needs no privilege (it listens on 8080, not < 1024).
USER 65532:65532
# Inside a container the replica must listen beyond loopback, which `shop
# serve` refuses without SECKILL_ADMIN_TOKEN: set it when running the image
# (docker-compose.yml does, from the environment, default "change-me").
ENV SECKILL_HTTP_ADDR=0.0.0.0:8080
EXPOSE 8080
# SIGTERM is the graceful stop: in-flight orders finish (at most 30 s).
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/shop"]
CMD ["serve"]
