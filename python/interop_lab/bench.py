"""python -m interop_lab.bench: what a texture frame costs from Python, beside the same frame in C++.

A Python texture frame is `with lab.map(stream=s) as f: f["pattern texture"].copy_from(array)`: the
hand-off (map + unmap) around one device-to-device copy into the mapped cudaArray. This measures, at one
size (default 3840x2160, RGBA8), each frame finished on the host before the next (as interop-lab's
--bench does):

  hand-off      map + unmap alone, by the bridge's C++ loop (ilab_time_texture_frames)
  GPU work      the frame's work on the stream: CUDA events around map .. copy .. unmap
  C++ frame     map + copy + unmap by the bridge's C++ loop: what Python adds nothing to
  Python frame  the same three calls from Python, through the package's API

and reports the Python frame against GPU work + hand-off, and against the C++ frame.

With --points N it measures Viewer.points instead, N points drawn headless at --size as squares of 1 pixel:

  moved     frames a second where CuPy turns every point each frame, writing the points' memory itself
            (`with viewer.points_frame(n)`: zero copy), and the viewer draws them
  orbited   frames a second of the draw alone, the camera turned a step a frame (a drag)

each the whole run's frames over its host time, ended by reading the last frame back.

Needs CuPy and a CUDA device whose GL interop works. Exit codes: 0 measured, 2 bad usage, 1 no CUDA or no
CuPy here.
"""

import argparse
import ctypes
import json
import os
import statistics
import sys
import time

import numpy

SCENE, TEXTURE = "pattern", "pattern texture"
_NEEDS = "needs CuPy and a CUDA device whose GL interop works"


def _size(text):
    try:
        width, height = (int(part) for part in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: WIDTHxHEIGHT, e.g. 3840x2160") from None
    if width < 1 or height < 1 or width > 16384 or height > 16384:
        raise argparse.ArgumentTypeError(f"{text!r}: each side from 1 to 16384")
    return width, height


def _frames(text):
    try:
        frames = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: a whole number of frames") from None
    if frames < 10:
        raise argparse.ArgumentTypeError(f"{frames}: at least 10 frames, so that a median means something")
    return frames


def _points(text):
    try:
        points = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: a whole number of points") from None
    if not 1 <= points <= 1 << 28:
        raise argparse.ArgumentTypeError(f"{points}: from 1 to {1 << 28} points")
    return points


def _host_median_ms(frames, work, finish):
    samples = []
    for _ in range(frames):
        start = time.perf_counter()
        work()
        finish()
        samples.append((time.perf_counter() - start) * 1e3)
    return statistics.median(samples)


def measure(cupy, size, frames):
    """The four figures of the module's docstring, in milliseconds, as a dict."""
    import interop_lab
    from interop_lab._native import check, lib, whole_number

    width, height = size
    frames = whole_number(frames, "frames", 1)  # an int in the C ABI: a larger one would wrap
    with interop_lab.Lab(SCENE, size=size, mode="interop") as lab:
        index = [resource["label"] for resource in lab.resources].index(TEXTURE)
        stream = cupy.cuda.Stream(non_blocking=True)
        with cupy.cuda.Device(lab.cuda_device), stream:
            image = cupy.full((height, width, 4), 128, dtype=cupy.uint8)
        stream.synchronize()

        def frame():
            with lab.map(stream=stream) as mapped:
                mapped[TEXTURE].copy_from(image)

        def handoff():
            with lab.map(stream=stream):
                pass

        for _ in range(20):  # the driver's first maps and copies of this size cost more than the rest
            frame()
        stream.synchronize()

        handoff_cpp, frame_cpp = ctypes.c_double(), ctypes.c_double()
        check(lib.ilab_time_texture_frames(lab._handle, index, image.data.ptr, width * 4, stream.ptr, frames,
                                           ctypes.byref(handoff_cpp), ctypes.byref(frame_cpp)))
        gpu = []
        for _ in range(frames):
            start, end = cupy.cuda.Event(), cupy.cuda.Event()
            start.record(stream)
            frame()
            end.record(stream)
            end.synchronize()
            gpu.append(cupy.cuda.get_elapsed_time(start, end))
        python_handoff = _host_median_ms(frames, handoff, stream.synchronize)
        python_frame = _host_median_ms(frames, frame, stream.synchronize)

    gpu_work = statistics.median(gpu)
    return {
        "scene": SCENE,
        "width": width,
        "height": height,
        "frames": frames,
        "handoff_ms": handoff_cpp.value,
        "gpu_work_ms": gpu_work,
        "cpp_frame_ms": frame_cpp.value,
        "python_handoff_ms": python_handoff,
        "python_frame_ms": python_frame,
        "x_gpu_work_plus_handoff": python_frame / (gpu_work + handoff_cpp.value),
        "x_cpp_frame": python_frame / frame_cpp.value,
    }


def measure_points(cupy, points, size, frames):
    """--points: the two rates of the module's docstring, frames a second, as a dict."""
    import interop_lab

    viewer = interop_lab.Viewer(size=size, window=False, mode="interop")
    with viewer:
        stream = cupy.cuda.Stream(non_blocking=True)
        with cupy.cuda.Device(viewer.cuda_device), stream:
            base = cupy.random.default_rng(1).standard_normal((points, 3), dtype=cupy.float32)
            base[:, 1] *= 0.2  # a disc, turning about y
            colours = cupy.empty((points, 4), cupy.uint8)
            colours[:, :3] = ((base - base.min()) / (base.max() - base.min()) * 255).astype(cupy.uint8)
            colours[:, 3] = 255
            turn = cupy.ElementwiseKernel("float32 x, float32 z, float32 c, float32 s", "float32 u, float32 v",
                                          "u = x * c - z * s; v = x * s + z * c", "turn_points")

        def move(step):
            with viewer.points_frame(points, stream=stream, size=1.0) as (xyz, rgba):
                target = cupy.asarray(xyz)
                with stream:
                    if step == 0:
                        target[...] = base
                        cupy.asarray(rgba)[...] = colours
                    angle = numpy.float32(0.01 * step)
                    turn(base[:, 0], base[:, 2], numpy.cos(angle), numpy.sin(angle), target[:, 0], target[:, 2])

        def rate(work):
            for step in range(5):  # the driver's first frames cost more than the rest
                work(step)
            viewer.read_frame()
            start = time.perf_counter()
            for step in range(frames):
                work(step)
            viewer.read_frame()  # the last frame drawn: every frame before it is done
            return frames / (time.perf_counter() - start)

        moved = rate(move)
        orbited = rate(lambda step: viewer.pan(1.0, 0.0))
        return {"points": points, "width": size[0], "height": size[1], "frames": frames, "path": viewer.path,
                "moved_fps": moved, "orbited_fps": orbited}


def points_table(result):
    return "\n".join([
        f"{result['points']:,} points at {result['width']}x{result['height']} ({result['path']} path), "
        f"{result['frames']} frames each:",
        f"  moved (CuPy writes the points' memory, then drawn)    {result['moved_fps']:8.1f} frames/s",
        f"  orbited (drawn alone, the camera turned)              {result['orbited_fps']:8.1f} frames/s",
    ])


def table(result):
    rows = [
        ("hand-off (map + unmap, C++ loop)", result["handoff_ms"], ""),
        ("GPU work (events on the stream)", result["gpu_work_ms"], ""),
        ("C++ frame (map + copy + unmap)", result["cpp_frame_ms"], ""),
        ("Python hand-off", result["python_handoff_ms"], ""),
        ("Python frame", result["python_frame_ms"],
         f"{result['x_gpu_work_plus_handoff']:.2f}x GPU work + hand-off, {result['x_cpp_frame']:.2f}x the C++ frame"),
    ]
    lines = [f"{result['scene']} texture frame from Python at {result['width']}x{result['height']}, median of "
             f"{result['frames']} frames, each finished before the next:"]
    lines += [f"  {name:34s} {ms:7.3f} ms  {note}".rstrip() for name, ms, note in rows]
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m interop_lab.bench",
                                     description="What a 4K texture frame costs from Python, beside C++. "
                                                 f"{_NEEDS}.")
    parser.add_argument("--size", type=_size, default=(3840, 2160), help="WIDTHxHEIGHT (default 3840x2160)")
    parser.add_argument("--frames", type=_frames, default=300, help="frames per measurement (default 300)")
    parser.add_argument("--points", type=_points, metavar="N",
                        help="measure Viewer.points with N points instead (e.g. 10000000)")
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON to PATH")
    args = parser.parse_args(argv)
    if args.json and not os.path.isdir(os.path.dirname(os.path.abspath(args.json))):
        parser.error(f"--json {args.json}: its folder does not exist")
    try:
        import cupy
    except Exception as error:  # not installed (ImportError), or a CuPy that cannot load its CUDA libraries
        print(f"python -m interop_lab.bench: {_NEEDS}: CuPy does not import here ({error})", file=sys.stderr)
        return 1
    import interop_lab

    try:
        if args.points:
            result = measure_points(cupy, args.points, args.size, args.frames)
        else:
            result = measure(cupy, args.size, args.frames)
    except (interop_lab.InteropLabError, cupy.cuda.runtime.CUDARuntimeError) as error:
        print(f"python -m interop_lab.bench: {_NEEDS}: {error}", file=sys.stderr)
        return 1
    print(points_table(result) if args.points else table(result))
    if args.json:  # whole or not at all: written beside it, then renamed over it
        partial = args.json + ".partial"
        with open(partial, "w") as out:
            json.dump(result, out, indent=2)
            out.write("\n")
        os.replace(partial, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
