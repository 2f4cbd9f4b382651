"""Runs a command on a pseudo-terminal (its stdin, stdout and stderr), waits for `prompt` in its output, types
`text`, and prints how it ended: its exit code, or "still running" if it had not exited 20 s later (it is then
killed); then everything it wrote to the terminal."""
import os
import pty
import select
import signal
import sys
import time

prompt = sys.argv[1].encode()
text = sys.argv[2].encode()
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[3], sys.argv[3:])


def read_some(seen, wait):
    """`seen` and what the command wrote next, or None once the terminal is closed (the command ended)."""
    ready, _, _ = select.select([fd], [], [], wait)
    if ready:
        try:
            data = os.read(fd, 4096)
        except OSError:
            return None
        return seen + data if data else None
    return seen


seen = b""
deadline = time.time() + 60
while prompt not in seen and time.time() < deadline:
    more = read_some(seen, 1)
    if more is None:
        break
    seen = more
if prompt not in seen:
    print("no prompt")
    print(seen.decode(errors="replace"))
    os.kill(pid, signal.SIGKILL)
    sys.exit(0)

os.write(fd, text)
deadline = time.time() + 20
while time.time() < deadline:
    done, status = os.waitpid(pid, os.WNOHANG)
    if done:
        # What it wrote last is still in the terminal's buffer until read.
        more = read_some(seen, 0.1)
        while more is not None and more != seen:
            seen, more = more, read_some(more, 0.1)
        print(os.waitstatus_to_exitcode(status))
        print(seen.decode(errors="replace"))
        sys.exit(0)
    seen = read_some(seen, 0.1) or seen
print("still running")
print(seen.decode(errors="replace"))
os.kill(pid, signal.SIGKILL)
