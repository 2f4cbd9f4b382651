"""Runs a command on a pseudo-terminal, waits for `prompt` in its output, types Ctrl-C, and prints how it ended:
its exit code, or "still running" if it had not exited 10 s later (it is then killed)."""
import os
import pty
import select
import signal
import sys
import time

prompt = sys.argv[1].encode()
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[2], sys.argv[2:])

seen = b""
deadline = time.time() + 60
while prompt not in seen and time.time() < deadline:
    ready, _, _ = select.select([fd], [], [], 1)
    if ready:
        try:
            seen += os.read(fd, 4096)
        except OSError:
            break
if prompt not in seen:
    print("no prompt: " + seen.decode(errors="replace"))
    os.kill(pid, signal.SIGKILL)
    sys.exit(0)

os.write(fd, b"\x03")
deadline = time.time() + 10
while time.time() < deadline:
    done, status = os.waitpid(pid, os.WNOHANG)
    if done:
        print(os.waitstatus_to_exitcode(status))
        sys.exit(0)
    ready, _, _ = select.select([fd], [], [], 0.1)
    if ready:
        try:
            os.read(fd, 4096)
        except OSError:
            pass
print("still running")
os.kill(pid, signal.SIGKILL)
