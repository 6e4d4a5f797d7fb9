# The image `activation sandbox build` makes (docs/sandboxes.md): the base image (its build
# argument BASE, by default the one .ci/sandbox-image makes) with this machine's Node and the
# pinned agent CLIs, laid out in the build context by the tool; its labels, given to
# `docker build`, say where each CLI is and which version it is.
ARG BASE=activation-sandbox:bookworm
FROM ${BASE}
COPY node /usr/local/bin/node
COPY agents/ /opt/activation/agents/
