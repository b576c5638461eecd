#!/bin/sh
# with_window_manager.sh OPENBOX PROGRAM ARGS...: runs PROGRAM on the current X display (xvfb-run's) under a window
# manager, Debian's openbox, so that minimise and restore really happen (an X server alone ignores them). Waits until
# openbox runs its --startup command (it manages windows by then), exports SLABCAST_TEST_WINDOW_MANAGER=openbox so
# that the test requires them to take effect, and exits with PROGRAM's status.
set -u
openbox="$1"; shift
dir="$(mktemp -d)"
"$openbox" --sm-disable --startup "touch $dir/ready" > "$dir/openbox.log" 2>&1 &
wm=$!
tries=0
while [ ! -e "$dir/ready" ]; do
  tries=$((tries + 1))
  if [ "$tries" -gt 200 ] || ! kill -0 "$wm" 2>/dev/null; then
    echo "with_window_manager: openbox did not start within 10 s:" >&2
    cat "$dir/openbox.log" >&2
    kill "$wm" 2>/dev/null
    rm -rf "$dir"
    exit 1
  fi
  sleep 0.05
done
SLABCAST_TEST_WINDOW_MANAGER=openbox "$@"
status=$?
kill "$wm" 2>/dev/null
wait "$wm" 2>/dev/null
rm -rf "$dir"
exit "$status"
