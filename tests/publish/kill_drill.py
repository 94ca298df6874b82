#!/usr/bin/env python3
"""tests/publish/kill_drill.py — the fault drill of published frames: a publisher and its viewers killed
with SIGKILL in turn, and what the survivors do.

  kill_drill.py --app build/release/app/interop-lab --pattern build/release/tests/publish_pattern
                [--memory host|device] [--size WxH] [--cycles N] [--api gl|vulkan|none]

The publisher is tests/publish/publish_pattern.cpp (interop::Publisher, frames of a known pattern whose
first pixels name the frame and the publisher's generation); the viewer is `interop-lab --api API --attach NAME
--headless --frames N --screenshot PNG`. Everything meets in a runtime directory of the drill's own
(XDG_RUNTIME_DIR), removed at the end.

  1. shown exactly    two viewer runs (60 and 600 frames) against a publisher: each screenshot is, pixel for
                      pixel, the pattern of the frame it names (publish_pattern --check). Their times give
                      the viewer's frame rate here, from which the later runs' --frames are chosen.
  2. publisher killed the publisher is killed (SIGKILL) while a viewer shows its frames: the viewer says
                      "publisher gone", goes on to its last frame and exits 0, and its screenshot is still
                      that publisher's last frames, exact (not black, not torn).
  3. attached again   the same with a new publisher of the name started after the kill: the viewer says
                      "attached to 'NAME' again (pid P)" with the new publisher's pid, and its screenshot is
                      the new publisher's pattern, exact.
  4. viewer killed    --cycles times (default 5; the last with 3 viewers at once) viewers attach and are
                      killed (SIGKILL): the publisher sees each go (viewers back to 0), goes on publishing, and
                      its open descriptors end where they began; with device slots, so does the device's free
                      memory (cudaMemGetInfo, within 16 MiB: a leak of one 2 MiB-granular slot per cycle
                      shows over the cycles).
  5. clean stop       SIGTERM ends the publisher with exit 0.

--memory host (the default) runs anywhere, in CTest; --memory device needs a CUDA device that exports VMM
memory (scripts/gpu-tests.sh runs it on a GPU machine), and fails without one. A run whose viewer ended
before the event it waited for is repeated with more frames, up to four times. Exit 0 when every check
held, 1 when one failed (saying which and what was seen), 2 on a usage error.
"""

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

NAME = "drill"
DEVICE_TOLERANCE = 16 << 20
PUBLISHER_FPS = 120


class DrillFailure(Exception):
    pass


class ViewerEndedEarly(Exception):
    """The viewer reached its --frames before the event the drill waited for: run again with more."""


class Process:
    """A child whose stdout and stderr are read line by line on threads of their own."""

    def __init__(self, label, command, env):
        self.label = label
        self.command = command
        self.proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                                     text=True, bufsize=1)
        self.lines = {"stdout": [], "stderr": []}
        self.changed = threading.Condition()
        self.threads = [threading.Thread(target=self._read, args=(stream, key), daemon=True)
                        for stream, key in ((self.proc.stdout, "stdout"), (self.proc.stderr, "stderr"))]
        for thread in self.threads:
            thread.start()

    def _read(self, stream, key):
        for line in stream:
            with self.changed:
                self.lines[key].append(line.rstrip("\n"))
                self.on_line(key, line.rstrip("\n"))
                self.changed.notify_all()
        with self.changed:
            self.changed.notify_all()

    def on_line(self, key, line):
        pass

    def alive(self):
        return self.proc.poll() is None

    def wait_until(self, predicate, timeout):
        """predicate() under the lock, re-evaluated as lines come, until true (returns its value) or the
        process ended and its output was read, or `timeout` seconds passed (returns None)."""
        deadline = time.monotonic() + timeout
        with self.changed:
            while True:
                value = predicate()
                if value:
                    return value
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                if not self.alive() and not any(thread.is_alive() for thread in self.threads):
                    return None
                self.changed.wait(min(remaining, 0.05))

    def kill9(self):
        if self.alive():
            os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait()

    def finish(self, timeout):
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill9()
            raise DrillFailure(f"{self.label} did not end within {timeout} s: {self.tail()}")
        for thread in self.threads:
            thread.join(5)
        return self.proc.returncode

    def tail(self, count=6):
        with self.changed:
            lines = self.lines["stderr"][-count:] + self.lines["stdout"][-count:]
        return " | ".join(lines) if lines else "(no output)"


class Publisher(Process):
    def __init__(self, drill, generation):
        command = [drill.pattern, NAME, "--memory", drill.memory, "--size", drill.size, "--fps",
                   str(PUBLISHER_FPS), "--generation", str(generation)]
        self.generation = generation
        self.pid = None
        self.status = None  # the last "status" line, as a dict of ints
        super().__init__(f"the publisher (generation {generation})", command, drill.env)
        started = self.wait_until(lambda: self.pid and self.status, 30)
        if not started:
            self.kill9()
            raise DrillFailure(f"{self.label} did not start: {self.tail()}")

    def on_line(self, key, line):
        if key != "stdout":
            return
        match = re.match(r"publishing \S+ \S+ (\w+) slots pid (\d+)", line)
        if match:
            self.pid = int(match.group(2))
        if line.startswith("status "):
            self.status = {k: int(v) for k, v in (field.split("=") for field in line.split()[1:])}

    def wait_status(self, predicate, timeout, what):
        status = self.wait_until(lambda: self.status if predicate(self.status) else None, timeout)
        if not status:
            raise DrillFailure(f"{what}: not within {timeout} s (last: {self.status}; {self.tail()})")
        return dict(status)

    def current(self):
        with self.changed:
            return dict(self.status)


class Viewer(Process):
    def __init__(self, drill, frames, screenshot=None):
        command = [drill.app, "--api", drill.api, "--attach", NAME, "--headless", "--frames", str(frames)]
        if screenshot:
            command += ["--screenshot", screenshot]
        super().__init__(f"the viewer (--frames {frames})", command, drill.env)
        self.started = time.monotonic()

    def wait_line(self, pattern, timeout):
        """The first stderr line matching `pattern` (its match), waiting up to `timeout` s; ViewerEndedEarly
        when the viewer exited without it, DrillFailure when it is still running without it."""
        regex = re.compile(pattern)

        def found():
            for line in self.lines["stderr"]:
                match = regex.search(line)
                if match:
                    return match
            return None

        match = self.wait_until(found, timeout)
        if match:
            return match
        if not self.alive():
            raise ViewerEndedEarly(f"{self.label} ended (exit {self.proc.returncode}) before '{pattern}'")
        raise DrillFailure(f"{self.label}: no '{pattern}' within {timeout} s: {self.tail()}")


class Drill:
    def __init__(self, args):
        self.app = os.path.abspath(args.app)
        self.api = args.api
        self.pattern = os.path.abspath(args.pattern)
        self.memory = args.memory
        self.size = args.size
        self.cycles = args.cycles
        self.runtime = tempfile.mkdtemp(prefix="ilab-drill-", dir="/tmp")  # short: a socket path's limit
        os.chmod(self.runtime, 0o700)
        self.work = os.path.join(self.runtime, "shots")
        os.mkdir(self.work)
        self.env = dict(os.environ, XDG_RUNTIME_DIR=self.runtime)
        self.children = []
        self.checks = 0
        self.frames_per_second = None
        self.generation = 0

    def ok(self, text):
        self.checks += 1
        print(f"  ok: {text}", flush=True)

    def publisher(self):
        self.generation += 1
        publisher = Publisher(self, self.generation)
        self.children.append(publisher)
        return publisher

    def viewer(self, frames, screenshot=None):
        viewer = Viewer(self, frames, screenshot)
        self.children.append(viewer)
        return viewer

    def frames_for(self, seconds):
        return max(120, int(self.frames_per_second * seconds))

    def shot(self, label):
        return os.path.join(self.work, f"{label}.png")

    def check_shot(self, path, generation, what):
        """The screenshot is, pixel for pixel, a frame of `generation`'s pattern; returns that frame."""
        if not os.path.exists(path):
            raise DrillFailure(f"{what}: the viewer wrote no {path}")
        result = subprocess.run([self.pattern, "--check", path, "--size", self.size, "--generation",
                                 str(generation)], capture_output=True, text=True)
        said = (result.stdout + result.stderr).strip()
        if result.returncode != 0:
            kept = os.path.join(tempfile.gettempdir(), f"kill-drill-{os.path.basename(path)}")
            shutil.copyfile(path, kept)
            raise DrillFailure(f"{what}: {said} (the screenshot: {kept})")
        frame = int(re.match(r"frame (\d+)", said).group(1))
        self.ok(f"{what}: {said}")
        return frame

    def finish_viewer(self, viewer, what):
        status = viewer.finish(300)
        if status != 0:
            raise DrillFailure(f"{what}: the viewer exited {status}: {viewer.tail()}")
        return time.monotonic() - viewer.started

    # 1.
    def shown_exactly(self):
        print(f"1. shown exactly ({self.memory} slots, {self.size})", flush=True)
        publisher = self.publisher()
        seconds = {}
        for frames in (60, 600):
            path = self.shot(f"exact-{frames}")
            viewer = self.viewer(frames, path)
            seconds[frames] = self.finish_viewer(viewer, f"{frames} frames")
            wrote = [line for line in viewer.lines["stderr"] if "wrote" in line]
            if wrote:
                print(f"  {wrote[-1]}", flush=True)
            self.check_shot(path, publisher.generation, f"{frames} frames")
        span = seconds[600] - seconds[60]
        self.frames_per_second = 540 / span if span > 0.05 else 600 / seconds[600]
        print(f"  the viewer runs about {self.frames_per_second:.0f} frames a second here", flush=True)
        publisher.proc.send_signal(signal.SIGTERM)
        if publisher.finish(30) != 0:
            raise DrillFailure(f"the publisher, stopped by SIGTERM, exited {publisher.proc.returncode}")

    # 2. and 3.
    def publisher_killed(self, come_back):
        for attempt in range(4):
            seconds = (6 if come_back else 4) * 2 ** attempt
            try:
                return self._publisher_killed_once(come_back, self.frames_for(seconds))
            except ViewerEndedEarly as early:
                print(f"  again with more frames: {early}", flush=True)
                for child in self.children:
                    child.kill9()
        raise DrillFailure("the viewer ended before the drill's events four times over; is it that fast?")

    def _publisher_killed_once(self, come_back, frames):
        first = self.publisher()
        path = self.shot(f"killed-{first.generation}")
        viewer = self.viewer(frames, path)
        first.wait_status(lambda s: s["viewers"] >= 1, 60, "the viewer attaching")
        time.sleep(0.5)  # it shows frames
        if not viewer.alive():
            raise ViewerEndedEarly(f"{viewer.label} ended before the publisher was killed")
        before_kill = first.current()["frames"]
        first.kill9()
        gone = viewer.wait_line(r"publisher gone: (.*); the last frame stays", 10)
        self.ok(f"the publisher killed (SIGKILL) after {before_kill}+ frames: the viewer says \"{gone.group(0)}\"")
        expected_generation = first.generation
        if come_back:
            second = self.publisher()
            again = viewer.wait_line(r"attached to '%s' again \(pid (\d+)\)" % re.escape(NAME), 10)
            if int(again.group(1)) != second.pid:
                raise DrillFailure(f"the viewer attached again to pid {again.group(1)}, not the new publisher's "
                                   f"{second.pid}")
            self.ok(f"a new publisher of '{NAME}' (pid {second.pid}): the viewer says \"{again.group(0)}\"")
            second.wait_status(lambda s: s["viewers"] >= 1, 10, "the new publisher seeing the viewer")
            expected_generation = second.generation
        self.finish_viewer(viewer, "the viewer after the kill")
        self.ok("the viewer went on to its last frame and exited 0")
        frame = self.check_shot(path, expected_generation,
                                "its last frame, the new publisher's" if come_back else "the frame it kept")
        if not come_back and frame + PUBLISHER_FPS < before_kill:
            raise DrillFailure(f"the viewer kept frame {frame}, not one of the last before the kill "
                               f"(at least {before_kill} were published)")
        return second if come_back else None

    # 4.
    def viewer_killed(self, publisher):
        print(f"4. viewers killed (SIGKILL), {self.cycles} times; the publisher (pid {publisher.pid}) goes on",
              flush=True)
        start = publisher.wait_status(lambda s: s["viewers"] == 0, 10, "the publisher without viewers")
        time.sleep(0.3)
        start = publisher.current()
        print(f"  before: fds={start['fds']} device_free={start['device_free']}", flush=True)
        for cycle in range(1, self.cycles + 1):
            count = 3 if cycle == self.cycles else 1
            viewers = [self.viewer(1000000000) for _ in range(count)]
            publisher.wait_status(lambda s: s["viewers"] >= count, 60, f"cycle {cycle}: {count} viewer(s) attaching")
            time.sleep(0.5)
            attached = publisher.current()
            for viewer in viewers:
                if not viewer.alive():
                    raise DrillFailure(f"cycle {cycle}: a viewer ended before it was killed: {viewer.tail()}")
                viewer.kill9()
            after = publisher.wait_status(lambda s: s["viewers"] == 0, 10,
                                          f"cycle {cycle}: the publisher seeing its killed viewer(s) go")
            later = publisher.wait_status(lambda s: s["frames"] >= after["frames"] + 10, 5,
                                          f"cycle {cycle}: the publisher publishing on")
            if not publisher.alive():
                raise DrillFailure(f"cycle {cycle}: the publisher died: {publisher.tail()}")
            self.ok(f"cycle {cycle}: {count} viewer(s) attached (fds {attached['fds']}) and killed; the publisher "
                    f"saw them go and publishes on (frame {later['frames']}, fds {later['fds']}, device_free "
                    f"{later['device_free']})")
        end = publisher.wait_status(lambda s: s["fds"] == start["fds"], 5,
                                    f"the publisher's descriptors back to {start['fds']}")
        self.ok(f"the publisher's open descriptors: {start['fds']} before, {end['fds']} after {self.cycles} cycles")
        if self.memory == "device":
            end = publisher.wait_status(lambda s: abs(s["device_free"] - start["device_free"]) <= DEVICE_TOLERANCE,
                                        15, f"the device's free memory back to {start['device_free']} (16 MiB)")
            self.ok(f"the device's free memory: {start['device_free']} before, {end['device_free']} after "
                    f"({(end['device_free'] - start['device_free']) / 2**20:+.1f} MiB)")

    def run(self):
        self.shown_exactly()
        print("2. the publisher killed while a viewer shows its frames", flush=True)
        self.publisher_killed(come_back=False)
        print("3. the publisher killed, and a new one of the name started", flush=True)
        publisher = self.publisher_killed(come_back=True)
        self.viewer_killed(publisher)
        print("5. the publisher stopped (SIGTERM)", flush=True)
        publisher.proc.send_signal(signal.SIGTERM)
        status = publisher.finish(30)
        if status != 0:
            raise DrillFailure(f"the publisher, stopped by SIGTERM, exited {status}: {publisher.tail()}")
        self.ok("it exited 0")

    def close(self):
        for child in self.children:
            if child.alive():
                child.kill9()
        shutil.rmtree(self.runtime, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--app", required=True, help="the interop-lab executable")
    parser.add_argument("--pattern", required=True, help="the publish_pattern executable")
    parser.add_argument("--memory", choices=("host", "device"), default="host")
    parser.add_argument("--size", default="320x180")
    parser.add_argument("--cycles", type=int, default=5)
    parser.add_argument("--api", default="gl", help="the viewers' graphics API (gl, vulkan, none)")
    args = parser.parse_args()
    if not re.fullmatch(r"\d+x\d+", args.size) or args.cycles < 1:
        parser.error("--size WxH, --cycles 1 or more")
    for path in (args.app, args.pattern):
        if not os.access(path, os.X_OK):
            parser.error(f"{path}: not an executable")
    drill = Drill(args)
    started = time.monotonic()
    try:
        drill.run()
    except DrillFailure as failure:
        print(f"kill_drill: FAILED ({args.memory} slots) after {drill.checks} checks: {failure}", flush=True)
        return 1
    finally:
        drill.close()
    print(f"kill_drill: PASSED ({args.memory} slots): {drill.checks} checks in {time.monotonic() - started:.1f} s",
          flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
