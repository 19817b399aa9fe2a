# Shared by bench/instructions and bench/miss_instructions (sourced, not run): a free loopback
# port, the wait for a server under valgrind to answer, and the instructions callgrind counted
# in it between a zeroing and a dump.

# A loopback port nothing listens on.
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Waits (up to a minute: valgrind starts slowly) until the server on PORT answers PING; fails
# with a message if it never does.
wait_for_ping() {
  local port=$1
  for _ in $(seq 200); do redis-cli -p "$port" PING >/dev/null 2>&1 && return 0; sleep 0.3; done
  echo "the server did not answer on port $port" >&2
  return 1
}

# Prints the instructions counted since `callgrind_control -z PID` in the server under
# callgrind (started with --callgrind-out-file=DIR/cg.%p) that listens on PORT.
callgrind_instructions() {
  local pid=$1 port=$2 dir=$3
  callgrind_control -d measured "$pid" >/dev/null 2>&1
  # Callgrind acts on the request when the server next runs code (a PING wakes an idle loop;
  # its few instructions are noise) and writes cg.<pid>.1, whose totals line comes last.
  local dump="$dir/cg.$pid.1"
  for _ in $(seq 100); do
    grep -qE "^(summary|totals):" "$dump" 2>/dev/null && break
    redis-cli -p "$port" PING >/dev/null 2>&1 || true
    sleep 0.2
  done
  grep -E "^(summary|totals):" "$dump" | head -1 | awk '{print $2}'
}
