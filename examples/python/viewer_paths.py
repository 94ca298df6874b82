"""What each way into interop_lab.Viewer costs on this machine: show() of a CuPy RGBA8 array (one
device-to-device copy into the GL buffer), show() of float32 RGB (one conversion kernel), and writing
the displayed buffer itself inside `with viewer.frame()` (zero copy). Prints the path, and for each way
the host time per update and the GPU time of the work queued on the stream (CUDA events), medians of 100.
Needs CuPy and a CUDA device (without CuPy it says so and exits 1).

    python3 examples/python/viewer_paths.py [WIDTH HEIGHT]      (default 3840 2160; headless without a display)
"""

import statistics
import sys
import time

import interop_lab
from _needs import needs

cupy = needs("cupy", "CuPy and a CUDA device")


def measure(update, stream, count=100):
    host, gpu = [], []
    for _ in range(count):
        start, end = cupy.cuda.Event(), cupy.cuda.Event()
        start.record(stream)
        began = time.perf_counter()
        update()
        host.append((time.perf_counter() - began) * 1e3)
        end.record(stream)
        end.synchronize()
        gpu.append(cupy.cuda.get_elapsed_time(start, end))
    return statistics.median(host), statistics.median(gpu)


def main():
    width, height = (int(sys.argv[1]), int(sys.argv[2])) if len(sys.argv) == 3 else (3840, 2160)
    stream = cupy.cuda.Stream(non_blocking=True)
    with stream:
        rgba = cupy.random.randint(0, 256, size=(height, width, 4), dtype=cupy.uint8)
        rgb = cupy.random.random((height, width, 3), dtype=cupy.float32)
    stream.synchronize()
    with interop_lab.Viewer(size=(width, height), window=False) as viewer:
        print(f"{width}x{height}, path {viewer.path}{': ' + viewer.path_reason if viewer.path_reason else ''}")

        def in_frame():
            with viewer.frame(stream=stream) as target, stream:
                cupy.asarray(target)[...] = 128

        for label, update in [("show(uint8 RGBA)", lambda: viewer.show(rgba, stream=stream)),
                              ("show(float32 RGB)", lambda: viewer.show(rgb, stream=stream)),
                              ("frame() fill", in_frame)]:
            host, gpu = measure(update, stream)
            print(f"{label:20s} host {host:7.3f} ms   GPU (stream) {gpu:7.3f} ms")


if __name__ == "__main__":
    main()
