#!/usr/bin/env python3
"""test_terminal_probe.py — with no UTF-8 asked for (LANG and LC_* unset), qkv asks the
terminal whether it shows UTF-8 before drawing, and draws in ASCII unless it does.

This test plays the terminal on a pseudo-terminal (tmux cannot be a Latin-1
terminal): it reads what qkv writes, answers the cursor position request
(ESC [ 6 n) as a UTF-8 terminal would (column 2 after the two bytes of "é"), as a
Latin-1 one would (column 3), or not at all, and reads the screen qkv draws. In a
terminal that is not UTF-8, the UTF-8 bytes qkv wrote before included C1 controls
(0x9A asks the terminal to identify itself; its answer came back as keys).
Usage: test_terminal_probe.py QKV. Prints TAP."""
import os
import pty
import select
import signal
import struct
import sys
import termios
import fcntl
import time

QKV = sys.argv[1]
count = 0
failed = 0


def record(ok, message, detail=None):
    global count, failed
    count += 1
    if not ok:
        failed += 1
    print(("ok" if ok else "not ok") + " %d - %s" % (count, message))
    if not ok and detail:
        for line in detail.splitlines():
            print("# " + line)


def run(answer, env_extra=None, wait=1.5, late=None):
    """Starts qkv on an 80×24 pty with no locale; answers the probe with `answer`
    (bytes, or None for no answer), `late` seconds after the question when given.
    Returns (bytes written before the probe's question, bytes written after it,
    whether it asked, exit status); with `late`, the bytes after the question are
    those written after the late answer."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("LC_") and k != "LANG"}
    env.update({"TERM": "xterm-256color", "XDG_STATE_HOME": os.environ.get("TMPDIR", "/tmp")})
    env.pop("QKV_ASCII", None)
    if env_extra:
        env.update(env_extra)
    pid, master = pty.fork()
    if pid == 0:
        os.execve(QKV, [QKV], env)
    fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    out = b""
    asked = False
    cut = None
    answer_at = None
    end = time.monotonic() + wait + 1.0
    while time.monotonic() < end:
        if answer_at is not None and time.monotonic() >= answer_at:
            os.write(master, answer)
            answer_at = None
            cut = len(out)
        ready, _, _ = select.select([master], [], [], 0.05)
        if not ready:
            continue
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        out += data
        if not asked and b"\033[6n" in out:
            asked = True
            cut = out.index(b"\033[6n") + 4
            end = time.monotonic() + wait
            if answer is not None and late is not None:
                answer_at = time.monotonic() + late
            elif answer is not None:
                os.write(master, answer)
    os.write(master, b"q")
    status = None
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.05)
        if ready:
            try:
                if not os.read(master, 65536):
                    pass
            except OSError:
                pass
        done, raw = os.waitpid(pid, os.WNOHANG)
        if done == pid:
            status = os.waitstatus_to_exitcode(raw)
            break
    if status is None:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    os.close(master)
    if cut is None:
        return out, b"", asked, status
    return out[:cut], out[cut:], asked, status


def non_ascii(data):
    return sorted({b for b in data if b >= 0x80})


# A Latin-1 terminal: "é" took two columns, so the cursor is at column 3.
before, after, asked, status = run(b"\033[1;3R")
record(asked, "no locale: qkv asks the terminal where the cursor is after a test character")
record(before.count(b"\xc3\xa9") == 1 and non_ascii(before.replace(b"\xc3\xa9", b"")) == [],
       "no locale: the test character is the only non-ASCII text written before the answer")
record(non_ascii(after) == [], "a Latin-1 terminal (column 3): everything drawn is ASCII",
       "bytes >= 0x80: %s" % non_ascii(after)[:20])
record(not any(0x80 <= b <= 0x9F for b in after), "a Latin-1 terminal: no C1 control byte is written")
record(b"sqrt(2)" in after, "a Latin-1 terminal: the title bar reads sqrt(2)")
record(status == 0, "a Latin-1 terminal: q quits with status 0", "status %s" % status)

# A UTF-8 terminal: one column for the two bytes.
before, after, asked, status = run(b"\033[1;2R")
record(asked and "√2".encode() in after, "a UTF-8 terminal (column 2): the title bar reads √2 in UTF-8")
record(status == 0, "a UTF-8 terminal: q quits with status 0", "status %s" % status)

# No answer at all: ASCII, after a short wait.
before, after, asked, status = run(None, wait=1.0)
record(asked and non_ascii(after) == [] and b"sqrt(2)" in after,
       "a terminal that does not answer: everything drawn is ASCII")
record(status == 0, "a terminal that does not answer: q quits with status 0", "status %s" % status)

# An answer that comes after the 300 ms (a slow link): ASCII, and the answer is
# never read as keys (its '[' would drop a column of Q and K, its digits start an
# edit, and q would then be typed into the edit rather than quit).
for late_answer in (b"\033[24;2R", b"\033[7;13R"):
    before, after, asked, status = run(late_answer, wait=1.5, late=0.6)
    shown = late_answer.decode().replace("\033", "ESC ")
    record(asked and b"editing" not in after and b"d_k 1 " not in after,
           "an answer %s 0.6 s late: not read as keys (no edit, d_k unchanged)" % shown,
           after.decode("latin-1")[-600:])
    record(status == 0, "an answer %s 0.6 s late: q still quits with status 0" % shown, "status %s" % status)

# A UTF-8 locale asked for: no question, UTF-8.
before, after, asked, status = run(b"\033[1;3R", {"LANG": "C.UTF-8"})
record(not asked and "√2".encode() in before, "LANG=C.UTF-8: no question to the terminal, UTF-8 drawn")
record(status == 0, "LANG=C.UTF-8: q quits with status 0", "status %s" % status)

print("1..%d" % count)
sys.exit(1 if failed else 0)
