#!/usr/bin/env bash
# Start or stop a Docker engine for faultsmith's docker mode, on a machine without systemd.
#   scripts/dockerd.sh start   install docker.io + debootstrap if missing, start dockerd --bridge=none,
#                              wait (bounded) for `docker info`; prints the PID it started
#   scripts/dockerd.sh stop    stop only the dockerd this script started (by the PID in its pidfile)
#   scripts/dockerd.sh status  exit 0 when an engine answers
# State lives in $FAULTSMITH_DOCKERD_DIR (default: ${XDG_CACHE_HOME:-$HOME/.cache}/faultsmith/dockerd).
set -euo pipefail
STATE="${FAULTSMITH_DOCKERD_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/faultsmith/dockerd}"
PIDFILE="$STATE/dockerd.pid"
LOG="$STATE/dockerd.log"
WAIT_S="${FAULTSMITH_DOCKERD_WAIT_S:-30}"

die() { echo "dockerd.sh: $*" >&2; exit 1; }
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo -n"
as_root() { $SUDO "$@"; }
engine_up() { timeout 5 docker info >/dev/null 2>&1; }

install_missing() {
  local need=()
  command -v dockerd >/dev/null 2>&1 || need+=(docker.io)
  command -v debootstrap >/dev/null 2>&1 || need+=(debootstrap)
  [ "${#need[@]}" -eq 0 ] && return 0
  echo "installing ${need[*]} ..." >&2
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null \
    || die "apt-get update failed"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need[@]}" >/dev/null \
    || die "apt-get install ${need[*]} failed"
}

start() {
  if engine_up; then echo "a Docker engine already answers; not starting another" >&2; return 0; fi
  install_missing
  mkdir -p "$STATE"
  if [ -f "$PIDFILE" ] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null; then
    die "dockerd $(cat "$PIDFILE") from $PIDFILE is running but does not answer; see $LOG"
  fi
  # no default bridge: containers run with --network none or --network host only
  $SUDO nohup dockerd --bridge=none --iptables=false --ip-masq=false \
    --pidfile "$STATE/dockerd.daemon.pid" >"$LOG" 2>&1 &
  echo $! >"$PIDFILE"
  local deadline=$((SECONDS + WAIT_S))
  until engine_up; do
    if ! kill -0 "$(cat "$PIDFILE")" 2>/dev/null; then
      die "dockerd exited during startup: $(tail -n 1 "$LOG")"
    fi
    [ "$SECONDS" -ge "$deadline" ] && { stop >/dev/null 2>&1 || true; die "no answer from dockerd after ${WAIT_S}s; see $LOG"; }
    sleep 0.3
  done
  echo "dockerd started (pid $(cat "$PIDFILE"), log $LOG)"
}

stop() {
  [ -f "$PIDFILE" ] || { echo "no dockerd started by this script ($PIDFILE missing)" >&2; return 0; }
  local pid; pid="$(cat "$PIDFILE")"
  if kill -0 "$pid" 2>/dev/null; then
    as_root kill -TERM "$pid"
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && as_root kill -KILL "$pid"
  fi
  rm -f "$PIDFILE"
  echo "dockerd $pid stopped"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) engine_up && echo "engine up" || { echo "no engine" >&2; exit 1; } ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
