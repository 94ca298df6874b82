"""CuPy writes the `wave` scene's GL vertex buffer in place: the buffer, mapped, is a CuPy array (zero
copy through __cuda_array_interface__), and a kernel built from the project's own kernels/wave.hpp
(compiled by nvcc through CuPy) fills it. The frame GL draws must match the C++ path's golden.

    PYTHONPATH=build/release/python python3 examples/python/cupy_wave.py [out.png]
"""

import sys

import interop_lab
from _golden import ROOT, check, golden, out_path
from _needs import needs

cupy = needs("cupy", "CuPy and a CUDA device")

SOURCE = r"""
#include "kernels/wave.hpp"
extern "C" __global__ void write_wave(kernels::WaveVertex* vertices, int grid_x, int grid_z, float time) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= grid_x || j >= grid_z) return;
  kernels::WaveParams params;
  params.grid_x = grid_x;
  params.grid_z = grid_z;
  params.time = time;
  vertices[j * grid_x + i] = kernels::wave_vertex(i, j, params);
}
"""


def main():
    meta, _ = golden("wave")
    module = cupy.RawModule(code=SOURCE, backend="nvcc", options=("-I" + ROOT, "-std=c++17"))
    write_wave = module.get_function("write_wave")
    stream = cupy.cuda.Stream(non_blocking=True)
    with interop_lab.Lab("wave", size=(meta["width"], meta["height"])) as lab:
        with lab.map(frame=meta["frame"], stream=stream) as frame:
            vertices = cupy.asarray(frame["vertex buffer"])  # the mapped GL buffer itself
            assert vertices.data.ptr == frame["vertex buffer"].pointer
            grid = 256  # kernels::WaveParams' default grid, as the scene uses
            assert vertices.size == grid * grid * 6
            with stream:
                write_wave((grid // 16, grid // 16), (16, 16),
                           (vertices, cupy.int32(grid), cupy.int32(grid), cupy.float32(meta["frame"] / 60.0)))
            del vertices
        lab.read_frame()
        return check(lab, "wave", out_path())


if __name__ == "__main__":
    sys.exit(main())
