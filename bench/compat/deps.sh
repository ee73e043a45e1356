#!/usr/bin/env bash
# Installs the Debian packages of the compatibility programs, only when missing (after the
# benchmarks' own, bench/deps.sh).
set -euo pipefail
cd "$(dirname "$0")"
../deps.sh
pkgs=(groovy clojure jruby rhino bsh scala kotlin ant libsaxonhe-java libderby-java libhsqldb-java
      libjetty9-java libjna-java libpdfbox2-java libbatik-java antlr4 javacc jflex cup checkstyle ecj closure-compiler
      libjs-jquery)
missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
    if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
    echo "compat deps: installing ${missing[*]}"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
