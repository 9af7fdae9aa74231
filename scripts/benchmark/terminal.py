"""A real terminal for the editor: a pseudo-terminal whose output a thread drains and stamps
with its arrival time, so "the frame is on the screen" is measured from the bytes the editor
sent, not from when this script got around to looking."""
import fcntl
import os
import pty
import struct
import subprocess
import termios
import threading
import time


class Pane:
    def __init__(self, argv, env, cols=100, rows=40):
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        self.started = time.perf_counter()
        self.process = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=env,
                                        start_new_session=True, close_fds=True)
        os.close(slave)
        self.output = bytearray()
        # (arrival time, length of `output` after the chunk): to tell when a needle arrived.
        self.chunks = []
        self.changed = threading.Condition()
        self.reader = threading.Thread(target=self._drain, daemon=True)
        self.reader.start()

    def _drain(self):
        while True:
            try:
                data = os.read(self.master, 65536)
            except OSError:
                data = b""
            now = time.perf_counter()
            with self.changed:
                if not data:
                    self.chunks.append((now, -1))
                    self.changed.notify_all()
                    return
                self.output += data
                self.chunks.append((now, len(self.output)))
                self.changed.notify_all()

    def mark(self):
        """A position in the output: `wait_for` looks only at what arrives after it."""
        with self.changed:
            return len(self.output)

    def wait_for(self, needle, since=0, timeout=30.0):
        """The arrival time of the chunk that completed `needle` after `since`, or None."""
        deadline = time.perf_counter() + timeout
        with self.changed:
            while True:
                found = self.output.find(needle, since)
                if found >= 0:
                    end = found + len(needle)
                    for arrival, length in self.chunks:
                        if length >= end:
                            return arrival
                if self.chunks and self.chunks[-1][1] == -1:
                    return None  # the editor is gone
                left = deadline - time.perf_counter()
                if left <= 0:
                    return None
                self.changed.wait(left)

    def send(self, keys):
        os.write(self.master, keys)

    def close(self, timeout=10):
        """Quit with q (the editor writes what is pending), then make sure it is gone."""
        if self.process.poll() is None:
            try:
                self.send(b"q")
                self.process.wait(timeout=timeout)
            except (OSError, subprocess.TimeoutExpired):
                self.process.kill()
                self.process.wait()
        try:
            os.close(self.master)
        except OSError:
            pass

    def cpu_seconds(self):
        """CPU time (user + system) of all the process's threads so far, the larger of the
        two counts `cpu_times` gives (for a total; for a stretch, use `cpu_used`)."""
        return max(self.cpu_times())

    @staticmethod
    def cpu_used(before, after):
        """CPU seconds between two `cpu_times`: the larger of the two differences (a thread
        that ended drops out of the schedstat sum, so that difference can even be negative)."""
        return max(after[0] - before[0], after[1] - before[1], 0.0)

    def cpu_times(self):
        """(ticks, nanoseconds) as seconds: /proc/PID/stat counts every thread, ended ones
        included, but in clock ticks (10 ms at 100 Hz); /proc/PID/task/*/schedstat counts in
        nanoseconds, but only threads still alive. Each undercounts in its own way."""
        pid = self.process.pid
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        ticks = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime
        nanos = 0
        try:
            for task in os.listdir(f"/proc/{pid}/task"):
                try:
                    with open(f"/proc/{pid}/task/{task}/schedstat") as f:
                        nanos += int(f.read().split()[0])
                except OSError:
                    pass  # the thread ended between the listing and the read
        except OSError:
            pass
        return (ticks, nanos / 1e9)

    def memory_kib(self):
        """(peak resident, resident) in KiB."""
        fields = {}
        with open(f"/proc/{self.process.pid}/status") as f:
            for line in f:
                key, _, value = line.partition(":")
                fields[key] = value.strip()
        return int(fields["VmHWM"].split()[0]), int(fields["VmRSS"].split()[0])
