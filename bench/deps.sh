#!/usr/bin/env bash
# Installs the Debian packages the benchmarks need, only when missing, and
# unpacks the JDK 17 sources (src.zip) into bench/work/debs.
# openjdk-17-source is fetched with `apt-get download` and unpacked locally
# instead of installed: installing it would upgrade the system JDK 17 that
# the rest of the project builds and tests against.
set -euo pipefail
cd "$(dirname "$0")"
pkgs=(time curl gcc python3 libh2-java fop jython liblucene4.10-java libxalan2-java)
missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
updated=0
apt_update() {
    if ((updated == 0)); then $SUDO apt-get update -qq; updated=1; fi
}
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
if ((${#missing[@]})); then
    echo "bench deps: installing ${missing[*]}"
    apt_update
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
src=work/debs/openjdk-17-source
if [ ! -f "$src/usr/lib/jvm/openjdk-17/lib/src.zip" ]; then
    echo "bench deps: fetching openjdk-17-source"
    mkdir -p work/debs
    (cd work/debs && { apt-get download -qq openjdk-17-source 2>/dev/null || { apt_update && apt-get download -qq openjdk-17-source; }; })
    dpkg-deb -x work/debs/openjdk-17-source_*.deb "$src"
fi
