# Sourced by the bench scripts: the measured JDKs' homes, by feature version.
# JDK17_HOME / JDK25_HOME override the defaults.
# shellcheck disable=SC2034 # used by the sourcing script
declare -A home=([17]=${JDK17_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}
                 [25]=${JDK25_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64})

# Sets jdks to the feature versions a --jdk value names (17, 25 or all), or stops the script.
select_jdks() {
    case $1 in
        17 | 25) jdks=("$1") ;;
        all) jdks=(17 25) ;;
        *) echo "--jdk must be 17, 25 or all" >&2; exit 2 ;;
    esac
}
