"""cuda.core launches a kernel that writes the `pattern` scene's texture through a surface object
(surf2Dwrite): the mapped texture is a cudaArray, which the lab hands out as a cudaSurfaceObject_t.
The kernel is the pattern of kernels/pattern.hpp written out for NVRTC. The frame must match the C++
path's golden.

    PYTHONPATH=build/release/python python3 examples/python/cudacore_pattern.py [out.png]
"""

import sys

import numpy
try:
    from cuda.core import Device, LaunchConfig, Program, ProgramOptions, launch
except ImportError:  # cuda.core before 1.0
    from cuda.core.experimental import Device, LaunchConfig, Program, ProgramOptions, launch

import interop_lab
from _golden import check, golden, out_path

SOURCE = r"""
__device__ unsigned char unorm8(float v) { v = v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v); return (unsigned char)(v * 255.0f + 0.5f); }

extern "C" __global__ void pattern(cudaSurfaceObject_t surface, int width, int height, float t) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  const float u = ((float)x + 0.5f) / (float)width, v = ((float)y + 0.5f) / (float)height;
  const float aspect = (float)width / (float)height;
  const float cx = 0.5f + 0.25f * sinf(0.7f * t), cy = 0.5f + 0.25f * cosf(0.9f * t);
  const float dx = (u - cx) * aspect, dy = v - cy;
  const float ring = 0.5f + 0.5f * sinf(40.0f * sqrtf(dx * dx + dy * dy) - 4.0f * t);
  const float band = 0.5f + 0.5f * sinf(8.0f * u + 6.0f * v + 1.5f * t);
  const int checker = ((x >> 5) + (y >> 5)) & 1;
  const float shade = (0.55f + 0.45f * ring) * (checker ? 1.0f : 0.9f);
  const float r = (0.10f * (1.0f - band) + 0.95f * band) * shade;
  const float g = (0.35f * (1.0f - band) + 0.45f * band) * shade;
  const float b = (0.85f * (1.0f - band) + 0.15f * band) * shade;
  surf2Dwrite(make_uchar4(unorm8(r), unorm8(g), unorm8(b), 255), surface, x * 4, y);
}
"""


def main():
    meta, _ = golden("pattern")
    width, height = meta["width"], meta["height"]
    with interop_lab.Lab("pattern", size=(width, height)) as lab:
        device = Device(lab.cuda_device)
        device.set_current()
        stream = device.create_stream()
        arch = "".join(str(part) for part in device.compute_capability)
        kernel = Program(SOURCE, code_type="c++", options=ProgramOptions(arch=f"sm_{arch}")).compile(
            "cubin").get_kernel("pattern")
        with lab.map(frame=meta["frame"], stream=stream) as frame:
            surface = frame["pattern texture"].surface
            config = LaunchConfig(grid=((width + 15) // 16, (height + 15) // 16), block=(16, 16))
            launch(stream, config, kernel, numpy.uint64(surface), numpy.int32(width), numpy.int32(height),
                   numpy.float32(meta["frame"] / 60.0))
        lab.read_frame()
        return check(lab, "pattern", out_path())


if __name__ == "__main__":
    sys.exit(main())
