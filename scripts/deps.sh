#!/usr/bin/env bash
# Installs the Debian packages the build and tests need, only when missing.
# Usage: scripts/deps.sh [extra-package ...]
set -euo pipefail
# protobuf-c and zlib: hprof pprof; libmicrohttpd: hprof serve (the front end is built with the agent)
pkgs=(cmake make gcc pkg-config libcmocka-dev openjdk-17-jdk-headless python3 cppcheck clang-format clang-tidy git
      protobuf-c-compiler libprotobuf-c-dev zlib1g-dev libmicrohttpd-dev "$@")
missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
    echo "deps: installing ${missing[*]}"
    if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
