#!/bin/sh
# JDK-level checks of the class-file rewriter.
#   jdk_check.sh MODE JAVA_HOME BCI_JDK AGENT CLASSES WORKDIR
# MODE
#   image    every class file of the runtime image (read via jrt:/): parse -> write
#            is byte-identical, and rewriting with all hooks succeeds for
#            every class with code
#   verify   loads and links every 3rd class of the image (sorted by name)
#            under -Xverify:all with the agent rewriting all classes the VM
#            loads (all hooks, catch-all exits); every class must load and
#            link.  bench/bci/run.sh does the whole image and compares with
#            an uninstrumented run (kept out of CTest for time)
#   program  app.Program with and without the agent: same stdout, and one
#            exit seen per entry (except the documented constructor case)
#   xcomp    as program, instrumented run under -Xcomp -XX:-TieredCompilation
#            (every method compiled by C2 before it runs)
#   nocatch  as verify on every 20th class, exits by athrow hooks only
#   local    entry_local hooks (a shadow-stack height kept in an added local):
#            as verify on every 10th class, then as program and as xcomp with
#            the height checked after every catch
#   wide     the same with the local a long, also passed to the allocation
#            hooks, which check it against the height
#            (local and wide: C1 and C2 each compile every method of app.Program)
#   flexible (JDK 25+) constructors with code before super() (JEP 513),
#            compiled here: same output with and without the agent, balanced
#   javac    javac (fully instrumented, -Xverify:all) compiles the test sources;
#            the class files equal those of an uninstrumented javac
set -eu
mode=$1 java_home=$2 bci_jdk=$3 agent=$4 classes=$5 work=$6/$mode-$(basename "$java_home")
java="$java_home/bin/java"
rm -rf "$work"
mkdir -p "$work"
jvm="-Xshare:off -Xverify:all --patch-module java.base=$classes/tracker"
jvm="$jvm --add-exports java.base/hprofbci=ALL-UNNAMED -cp $classes/app"

case $mode in
image)
    "$java" -cp "$classes/app" app.Walker dump > "$work/image.bin"
    "$bci_jdk" check - < "$work/image.bin"
    rm -f "$work/image.bin"
    ;;
verify | nocatch | local | wide)
    every=3 opts=quiet
    [ "$mode" = nocatch ] && every=20 opts=quiet,nocatch
    [ "$mode" = local ] && every=10 opts=quiet,local
    [ "$mode" = wide ] && every=10 opts=quiet,wide
    "$java" $jvm --add-modules ALL-SYSTEM -agentpath:"$agent"=$opts app.Walker jrt $every \
        > "$work/agent.txt" 2> "$work/agent.err"
    cat "$work/agent.txt" "$work/agent.err"
    # On the stock JDK images every class links when not instrumented.
    head -1 "$work/agent.txt" | grep -Eq 'tried: ([0-9]+), loaded and linked: \1$'
    grep -q '(0 not handled)' "$work/agent.err"
    [ "$mode" = local ] || [ "$mode" = wide ] || exit 0
    "$java" $jvm app.Program > "$work/plain.txt"
    for extra in "" "-Xcomp -XX:-TieredCompilation"; do
        "$java" $jvm $extra -Dbci.local=true -Dbci.expectBalanced=true \
            -agentpath:"$agent"=$mode app.Program > "$work/local.txt"
        diff "$work/plain.txt" "$work/local.txt"
    done
    # C1 and C2 each compile every rewritten method of the program: a handler
    # whose own range covered its resume call made C1 give up ("error while
    # joining with exception handler"), and the method ran interpreted.
    # -Xbatch: each compilation ends before its method runs, so a loaded
    # machine cannot end the program before app.Program.guarded is compiled.
    for extra in "-XX:TieredStopAtLevel=1" "-XX:-TieredCompilation"; do
        "$java" $jvm -Xcomp -Xbatch $extra -XX:+PrintCompilation -XX:CompileCommand=quiet \
            -XX:CompileCommand=compileonly,app.*::* \
            -XX:CompileCommand=dontinline,hprofbci.Tracker::* -Dbci.local=true \
            -agentpath:"$agent"=$mode app.Program > "$work/compiled.txt"
        if grep 'COMPILE SKIPPED' "$work/compiled.txt"; then exit 1; fi
        grep -q 'app.Program::guarded' "$work/compiled.txt"
    done
    ;;
program | xcomp)
    "$java" $jvm app.Program > "$work/plain.txt"
    [ "$mode" = xcomp ] && jvm="$jvm -Xcomp -XX:-TieredCompilation"
    "$java" $jvm -Dbci.expectBalanced=true -agentpath:"$agent" app.Program > "$work/agent.txt"
    diff "$work/plain.txt" "$work/agent.txt"
    ;;
flexible)
    if ! "$java_home/bin/javac" --release 25 -version >/dev/null 2>&1; then
        echo "JDK older than 25: no flexible constructor bodies; skipped"
        exit 77
    fi
    java_src="$(cd "$(dirname "$0")" && pwd)/java"
    "$java_home/bin/javac" -d "$work/classes" --patch-module java.base="$java_src" \
        --add-exports java.base/hprofbci=ALL-UNNAMED "$java_src"25/app/Flexible.java
    jvm="-Xshare:off -Xverify:all --patch-module java.base=$classes/tracker"
    jvm="$jvm --add-exports java.base/hprofbci=ALL-UNNAMED -cp $work/classes"
    "$java" $jvm app.Flexible > "$work/plain.txt"
    "$java" $jvm -Dbci.expectBalanced=true -agentpath:"$agent" app.Flexible > "$work/agent.txt"
    diff "$work/plain.txt" "$work/agent.txt"
    ;;
javac)
    src="$(cd "$(dirname "$0")" && pwd)/java/app/Walker.java"
    javac="-m jdk.compiler/com.sun.tools.javac.Main -source 17 -target 17 -Xlint:-options"
    "$java" -Xshare:off $javac -d "$work/plain" "$src"
    "$java" -Xshare:off -Xverify:all --patch-module java.base="$classes/tracker" \
        -agentpath:"$agent" $javac -d "$work/agent" "$src" 2> "$work/agent.err"
    cat "$work/agent.err"
    grep -q '(0 not handled)' "$work/agent.err"
    diff -r "$work/plain" "$work/agent"
    ;;
*)
    echo "unknown mode $mode" >&2
    exit 2
    ;;
esac
