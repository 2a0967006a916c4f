#!/usr/bin/env bash
# Run a command with a real Kafka-protocol broker (tansu, see
# ../shared/KAFKA.md) on 127.0.0.1, its address in SPARKLET_KAFKA_BOOTSTRAP;
# the broker is stopped by its PID when the command ends, however it ends.
# The broker binary is installed once into $KDIR (kept between runs).
set -euo pipefail
KDIR=${KDIR:-$HOME/.cache/sparklet-kafka}
if [ ! -x "$KDIR/bin/tansu" ]; then
  echo "installing the tansu broker into $KDIR (once; about 16 min on 2 cores)" >&2
  CARGO_PROFILE_DEV_DEBUG=0 cargo install tansu --version 0.6.0 --locked --debug \
      --features dynostore,libsql --root "$KDIR" >&2
fi
# a free port, and a fresh data folder per run (topics never collide)
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
RUN=$(mktemp -d "${TMPDIR:-/tmp}/sparklet-kafka.XXXXXX")
mkdir -p "$RUN/data"
( cd "$RUN" && exec "$KDIR/bin/tansu" broker \
    --listener-url "tcp://127.0.0.1:$PORT" \
    --advertised-listener-url "tcp://127.0.0.1:$PORT" \
    --storage-engine sqlite://data/tansu.db ) > "$RUN/broker.log" 2>&1 &
KAFKA_PID=$!
stop() {
  kill -TERM "$KAFKA_PID" 2>/dev/null || true
  wait "$KAFKA_PID" 2>/dev/null || true
  rm -rf "$RUN"
}
trap stop EXIT
for _ in $(seq 1 150); do
  grep -q 'ready in' "$RUN/broker.log" && (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break
  kill -0 "$KAFKA_PID" 2>/dev/null || { cat "$RUN/broker.log" >&2; exit 1; }
  sleep 0.1
done
export SPARKLET_KAFKA_BOOTSTRAP="127.0.0.1:$PORT"
"$@"
