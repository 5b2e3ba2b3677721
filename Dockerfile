# mcpcheck in a container: `docker build -t mcpcheck .` then
#   docker run --rm --network host mcpcheck run --url http://127.0.0.1:3000/mcp
# Multi-stage: the build stage has the Rust toolchain; the final image is distroless (glibc, no
# shell, non-root) with the one binary, about 20 MB. To check a stdio server, build an image
# FROM this one that adds the server, or use the PyPI or npm package beside the server instead.
FROM rust:1-slim-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release --locked --bin mcpcheck

FROM gcr.io/distroless/cc-debian12:nonroot
COPY --from=build /src/target/release/mcpcheck /usr/local/bin/mcpcheck
ENTRYPOINT ["/usr/local/bin/mcpcheck"]
CMD ["--help"]
