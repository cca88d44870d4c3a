#!/usr/bin/env bash
# Installs the Debian packages the end-to-end tests need, only when missing.
#   scripts/apt-deps.sh            chromium (the browser that renders VS Code's workbench), and g++, make,
#                                  python3 if those commands are missing (node-gyp builds VS Code's spdlog)
#   scripts/apt-deps.sh --kerberos also libkrb5-dev, needed only for a full VS Code install
#                                  (SKILL_LSP_VSCODE_FULL=1: the `kerberos` module includes gssapi/gssapi.h)
# Safe to run repeatedly: a second run does no network access.
set -euo pipefail

packages=(chromium)
for arg in "$@"; do
  case "$arg" in
    --kerberos) packages+=(libkrb5-dev) ;;
    *) echo "apt-deps.sh: unknown option $arg" >&2; exit 2 ;;
  esac
done

# Build tools are checked as commands, not packages: any g++ or python3 on PATH will do.
for tool in g++ make python3; do
  command -v "$tool" >/dev/null 2>&1 || packages+=("$tool")
done

missing=()
for p in "${packages[@]}"; do
  # dpkg-query prints "install ok installed" only for a fully installed package.
  if [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)" != "install ok installed" ]; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "apt-deps.sh: already installed: ${packages[*]}"
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "apt-deps.sh: apt-get not found; install these yourself: ${missing[*]}" >&2
  exit 1
fi

sudo=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then sudo=(sudo); else
    echo "apt-deps.sh: need root (or sudo) to install: ${missing[*]}" >&2
    exit 1
  fi
fi

echo "apt-deps.sh: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
