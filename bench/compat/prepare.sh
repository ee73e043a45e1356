#!/usr/bin/env bash
# Prepares one JDK's compatibility programs under bench/work/compat/<feature>: the hostile
# programs and drivers compiled with that JDK, a Java agent that retransforms every class
# (retransform.jar), a program that redefines classes with its own Java agent (redefine.jar),
# the modular application (modules, a plugin module
# for the layer run, a --patch-module class) and its jlinked image, and the generated inputs.
# Usage: bench/compat/prepare.sh <feature> <java-home>
set -euo pipefail
cd "$(dirname "$0")"
feature=$1 jdk=$2
out=../work/compat/$feature
mkdir -p "$out"
stamp=$out/.prepared
if [ -f "$stamp" ] && [ -z "$(find programs prepare.sh -newer "$stamp" -print -quit)" ]; then exit 0; fi
rm -rf "${out:?}"/{classes,mods,plugin,patch,image,inputs,javaagent,retransform.jar,redefine,redefine.jar}

jars=/usr/share/java/jna.jar:/usr/share/java/derby.jar:/usr/share/java/jetty9-server.jar:/usr/share/java/jetty9-util.jar:/usr/share/java/jetty9-http.jar:/usr/share/java/jetty9-io.jar:/usr/share/java/servlet-api.jar:/usr/share/java/pdfbox2.jar:/usr/share/java/batik-all.jar
mapfile -t sources < <(find programs/hostile programs/drivers -name '*.java' | sort)
if ((feature >= 21)); then mapfile -t -O ${#sources[@]} sources < <(find programs/hostile21 -name '*.java'); fi
if ((feature >= 22)); then mapfile -t -O ${#sources[@]} sources < <(find programs/hostile22 -name '*.java'); fi
"$jdk/bin/javac" -nowarn -Xlint:none -cp "$jars" -d "$out/classes" "${sources[@]}"

"$jdk/bin/javac" -d "$out/javaagent" programs/javaagent/RetransformAgent.java
printf 'Premain-Class: RetransformAgent\nCan-Retransform-Classes: true\n' >"$out/javaagent/MANIFEST.MF"
"$jdk/bin/jar" cfm "$out/retransform.jar" "$out/javaagent/MANIFEST.MF" -C "$out/javaagent" .

r=programs/redefine
"$jdk/bin/javac" -d "$out/redefine" $r/Redefine.java $r/v1/RedefinedTarget.java
"$jdk/bin/javac" -d "$out/redefine/v2" $r/v2/RedefinedTarget.java
mv "$out/redefine/v2/RedefinedTarget.class" "$out/redefine/RedefinedTarget.v2" && rmdir "$out/redefine/v2"
printf 'Launcher-Agent-Class: Redefine\nCan-Redefine-Classes: true\nMain-Class: Redefine\n' >"$out/redefine.MF"
"$jdk/bin/jar" cfm "$out/redefine.jar" "$out/redefine.MF" -C "$out/redefine" .

m=programs/modular
"$jdk/bin/javac" -d "$out/mods/compat.app" $(find $m/app -name '*.java')
"$jdk/bin/javac" -p "$out/mods" -d "$out/plugin/compat.plugin" $(find $m/plugin -name '*.java')
"$jdk/bin/javac" -p "$out/mods" --patch-module compat.app=$m/patch -d "$out/patch" $(find $m/patch -name '*.java')
"$jdk/bin/jlink" --module-path "$out/mods" --add-modules compat.app --output "$out/image" --strip-debug \
    --no-header-files --no-man-pages

mkdir -p "$out/inputs"
python3 lib/gen_inputs.py "$out/inputs"
touch "$stamp"
