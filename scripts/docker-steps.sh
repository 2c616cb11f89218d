#!/bin/sh
# The steps of Lectern's container image, in one place: the Dockerfile runs them, and
# packages/server/test/docker-steps.test.ts runs the same steps in a temporary directory.
#
#   docker-steps.sh install              in a copy of the repository: npm ci (dev dependencies too)
#   docker-steps.sh build <app-dir>      build, pack the published packages and install them with
#                                        their production dependencies only into <app-dir>
#   docker-steps.sh start <app-dir>      run `lectern serve` in place of this shell (PID 1 in the
#                                        container, so SIGTERM from `docker stop` reaches it);
#                                        ingests LECTERN_DOCS_DIR first when it is set
#   docker-steps.sh health               exit 0 when GET /ready answers 200 (HEALTHCHECK)
#
# Configuration comes from the environment (README.md, "Configuration"): HOST, PORT,
# LECTERN_DATA_DIR, LECTERN_DOCS_DIR, DATABASE_URL, LLM_*, EMBEDDINGS_*, …
set -eu

step="${1:-}"
case "$step" in
  install)
    npm ci --no-audit --no-fund
    ;;

  build)
    app_dir="${2:?usage: docker-steps.sh build <app-dir>}"
    npm run build
    pack_dir="$(mktemp -d)"
    # prepack would build again: the build above already did.
    npm pack --ignore-scripts --pack-destination "$pack_dir" \
      --workspace @lectern/protocol --workspace @lectern/engine --workspace @lectern/server \
      >/dev/null
    mkdir -p "$app_dir"
    printf '{\n  "name": "lectern-app",\n  "private": true\n}\n' >"$app_dir/package.json"
    # What a user installs: the packed packages and their production dependencies.
    npm install --prefix "$app_dir" --omit=dev --no-audit --no-fund --no-package-lock \
      "$pack_dir"/lectern-protocol-*.tgz "$pack_dir"/lectern-engine-*.tgz \
      "$pack_dir"/lectern-server-*.tgz
    rm -rf "$pack_dir"
    # The tarballs are gone; the installed tree is the application.
    printf '{\n  "name": "lectern-app",\n  "private": true\n}\n' >"$app_dir/package.json"
    ;;

  start)
    app_dir="${2:?usage: docker-steps.sh start <app-dir>}"
    # `serve` ingests LECTERN_DOCS_DIR itself when it is set (an unchanged book in seconds).
    exec node "$app_dir/node_modules/@lectern/server/bin/lectern.js" serve
    ;;

  health)
    node -e '
      const url = `http://127.0.0.1:${process.env.PORT || 3000}/ready`;
      fetch(url, { signal: AbortSignal.timeout(4000) })
        .then((response) => process.exit(response.status === 200 ? 0 : 1))
        .catch(() => process.exit(1));
    '
    ;;

  *)
    echo "usage: docker-steps.sh install | build <app-dir> | start <app-dir> | health" >&2
    exit 2
    ;;
esac
