#!/usr/bin/env bash
# Prepares one JDK's benchmark inputs under bench/work: the minimal comparison agents (agents/*.c),
# the generated inputs, the compiled drivers and the javac source tree with its file lists.
# Usage: bench/prepare.sh <scale> <feature> <java-home>
set -euo pipefail
cd "$(dirname "$0")"
scale=$1 feature=$2 jdk=$3
mkdir -p work/agents work/inputs

for src in agents/*.c; do
    agent=work/agents/lib$(basename "$src" .c).so
    if [ ! -f "$agent" ] || [ "$src" -nt "$agent" ]; then
        cc -std=c11 -O2 -Wall -Wextra -Werror -shared -fPIC -I"$jdk/include" -I"$jdk/include/linux" \
            -o "$agent" "$src"
    fi
done

python3 lib/gen_inputs.py work/inputs "$scale"

classes=work/classes/$feature
if [ ! -d "$classes" ] || [ -n "$(find programs -name '*.java' -newer "$classes")" ]; then
    rm -rf "$classes"
    jars=$(grep -o '/usr/share/java/[^: ]*\.jar' programs.conf | sort -u | paste -sd:)
    mapfile -t sources < <(find programs -name '*.java' | sort)
    "$jdk/bin/javac" -nowarn -cp "$jars" -d "$classes" "${sources[@]}"
fi

# javac compiles java.base's java/util from the measured JDK's own sources: JDK 25 ships
# lib/src.zip; for JDK 17 it comes from Debian's openjdk-17-source (see deps.sh).
# java/util/jar is left out: its 17.0.21 sources do not compile against an older 17 runtime.
src=work/src$feature
if [ ! -d "$src/java.base/java/util" ]; then
    zip=$jdk/lib/src.zip
    [ -e "$zip" ] || zip=work/debs/openjdk-17-source/usr/lib/jvm/openjdk-$feature/lib/src.zip
    mkdir -p "$src"
    unzip -q -o "$zip" 'java.base/java/util/*' -d "$src"
fi
list=work/inputs/javac-$feature-$scale.txt
if [ ! -f "$list" ]; then
    find "$PWD/$src/java.base/java/util" -name '*.java' ! -path '*/java/util/jar/*' | sort >"$list.all"
    total=$(wc -l <"$list.all")
    head -n "$(python3 -c "import math; print(math.ceil($total * $scale))")" "$list.all" >"$list"
    rm "$list.all"
fi
