# Both binaries of the contract kit in one small image.
#
#   docker build -t contractkit .
#   docker run --rm -p 8080:8080 -e MOCK_API_KEY=my-key contractkit            # the mock
#   docker run --rm --network host contractkit conformance \
#       --base-url http://127.0.0.1:8080 --api-key my-key                       # the suite
#
# Stage 1 builds static binaries (no cgo), so the final image needs no libc.
FROM golang:1.26-bookworm AS build
WORKDIR /src
# Modules first: a change to the code does not download them again.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=
# --build-arg VERSION=$(git describe --tags --always) names the release in --version and reports.
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X contractkit/internal/version.Version=${VERSION}" -o /out/ ./cmd/mockserver ./cmd/conformance

# Stage 2: distroless "static" carries CA certificates, /etc/passwd and a
# nonroot user (65532) and nothing else: no shell to exploit.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/mockserver /out/conformance /usr/local/bin/
USER nonroot:nonroot
# Inside a container the mock must listen on every interface to be reached
# through a published port; the flag still wins over this default.
ENV MOCK_ADDR=0.0.0.0:8080
EXPOSE 8080
HEALTHCHECK NONE
ENTRYPOINT []
CMD ["mockserver"]
