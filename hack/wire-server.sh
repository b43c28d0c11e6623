#!/usr/bin/env bash
# Builds and runs hack/wireserver/WireServer.java: mongo-java-server with its
# in-memory backend, a real MongoDB wire-protocol server for tests (no MongoDB
# binary can be had on the project's machines; see
# shared/reference/offline-toolchain.md).
#
# The jars come from Maven Central (resolved with the pinned pom.xml, offline
# first so a warm ~/.m2 needs no network) and the main is compiled with javac.
# The result is cached outside the repository, so a fresh clone (CI) reuses it:
#   ${MONGOBENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mongobench}/wireserver-<mongo-java-server version>-<hash>/
# where <hash> covers pom.xml and WireServer.java, so editing either rebuilds.
#
# usage:
#   hack/wire-server.sh classpath          print the classpath (building if needed)
#   hack/wire-server.sh build              build if needed, print the cache directory
#   hack/wire-server.sh run [host] [port]  run in the foreground (default 127.0.0.1 0);
#                                          prints "LISTENING host:port" once bound and
#                                          exits on stdin EOF or SIGTERM
#
# Environment: WIRESERVER_JAVA_OPTS replaces the default JVM flags of `run`.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
src="$here/wireserver"
cache=${MONGOBENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mongobench}

die() {
  echo "wire-server.sh: error: $*" >&2
  exit 1
}

need() {
  command -v "$1" >/dev/null 2>&1 ||
    die "'$1' not found in PATH; the MongoDB wire-protocol test server needs $2"
}

[ -f "$src/pom.xml" ] && [ -f "$src/WireServer.java" ] || die "missing $src/pom.xml or $src/WireServer.java"
version=$(sed -n 's:.*<mongo-java-server.version>\(.*\)</mongo-java-server.version>.*:\1:p' "$src/pom.xml")
[ -n "$version" ] || die "cannot read <mongo-java-server.version> from $src/pom.xml"
hash=$(cat "$src/pom.xml" "$src/WireServer.java" | sha256sum | cut -c1-12)
out="$cache/wireserver-$version-$hash"

# build makes $out/classpath unless it exists. Concurrent callers (go test runs
# test packages in parallel) serialize on a lock and the work is done in a
# temporary directory renamed into place, so nobody sees a half-built cache.
build() {
  [ -f "$out/classpath" ] && return 0
  locked_build
  # Release the lock before `run` execs java, which would otherwise inherit
  # the descriptor and hold the lock for its whole life.
  exec 9>&-
}

locked_build() {
  need java "a Java runtime (17 or newer), e.g. apt-get install openjdk-17-jdk-headless"
  need javac "a JDK (17 or newer), e.g. apt-get install openjdk-17-jdk-headless"
  need mvn "Maven to fetch mongo-java-server from Maven Central, e.g. apt-get install maven"
  mkdir -p "$cache"

  if command -v flock >/dev/null 2>&1; then
    exec 9>"$cache/wireserver.lock"
    flock 9
    [ -f "$out/classpath" ] && return 0 # built by whoever held the lock
  fi

  local tmp
  tmp=$(mktemp -d "$cache/.wireserver-build.XXXXXX")
  # shellcheck disable=SC2064 # expand $tmp now: it is local
  trap "rm -rf '$tmp'" EXIT
  echo ">> building the wire-protocol test server (mongo-java-server $version) into $out" >&2

  local mvn_args=(-B -f "$src/pom.xml" dependency:copy-dependencies
    -DoutputDirectory="$tmp/lib" -DincludeScope=runtime -Dmdep.useRepositoryLayout=false)
  if ! mvn -o -q "${mvn_args[@]}" >"$tmp/mvn-offline.log" 2>&1; then
    echo ">> not all jars are in the local Maven repository; fetching them from Maven Central" >&2
    mvn "${mvn_args[@]}" >"$tmp/mvn.log" 2>&1 || {
      tail -n 40 "$tmp/mvn.log" >&2
      die "mvn could not resolve mongo-java-server $version (see the log above)"
    }
  fi
  ls "$tmp"/lib/*.jar >/dev/null 2>&1 || die "mvn copied no jars into $tmp/lib"

  javac -nowarn --release 17 -encoding UTF-8 -d "$tmp/classes" -cp "$tmp/lib/*" "$src/WireServer.java" ||
    die "javac failed on $src/WireServer.java"

  # An explicit list (not lib/*) so the classpath also works where Java's
  # wildcard expansion does not apply.
  local cp="$out/classes" jar
  for jar in "$tmp"/lib/*.jar; do
    cp="$cp:$out/lib/$(basename "$jar")"
  done
  printf '%s\n' "$cp" >"$tmp/classpath"
  rm -f "$tmp"/mvn*.log

  # -T: fail rather than move into an existing directory.
  mv -T "$tmp" "$out" 2>/dev/null || [ -f "$out/classpath" ] || die "cannot move $tmp to $out"
}

cmd=${1:-}
case "$cmd" in
  classpath)
    build
    cat "$out/classpath"
    ;;
  build)
    build
    echo "$out"
    ;;
  run)
    host=${2:-127.0.0.1}
    port=${3:-0}
    build
    need java "a Java runtime (17 or newer), e.g. apt-get install openjdk-17-jdk-headless"
    # Flags for a small, quick-to-start test server on a 2-core machine: the
    # serial collector starts no GC threads, C1 only (TieredStopAtLevel=1)
    # reaches full speed sooner than waiting for C2, and the heap is capped.
    # slf4j-simple logs warnings and errors to stderr.
    # shellcheck disable=SC2086 # WIRESERVER_JAVA_OPTS is a list of flags
    exec java ${WIRESERVER_JAVA_OPTS:--XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xms64m -Xmx1g -Xss512k} \
      -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
      -cp "$(cat "$out/classpath")" WireServer "$host" "$port"
    ;;
  *)
    echo "usage: $0 classpath | build | run [host] [port]" >&2
    exit 2
    ;;
esac
