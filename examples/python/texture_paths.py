"""What it costs to fill a mapped GL texture from Python: copy_from (cudaMemcpy2DToArrayAsync from a
CuPy array, which some kernel filled first) against a kernel writing the texture through its surface
object directly. GPU time of each on the lab's stream (CUDA events), median of 100, at 1080p and 4K.

    PYTHONPATH=build/release/python python3 examples/python/texture_paths.py
"""

import statistics

import interop_lab
from _needs import needs

cupy = needs("cupy", "CuPy and a CUDA device")

SOURCE = r"""
extern "C" __global__ void fill_linear(unsigned char* out, int width, int height) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  uchar4* row = reinterpret_cast<uchar4*>(out + (size_t)y * width * 4);
  row[x] = make_uchar4(x & 255, y & 255, 128, 255);
}
extern "C" __global__ void fill_surface(unsigned long long surface, int width, int height) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  surf2Dwrite(make_uchar4(x & 255, y & 255, 128, 255), surface, x * 4, y);
}"""


def timed(stream, work, repeats=100):
    samples = []
    for _ in range(repeats):
        start, end = cupy.cuda.Event(), cupy.cuda.Event()
        start.record(stream)
        work()
        end.record(stream)
        end.synchronize()
        samples.append(cupy.cuda.get_elapsed_time(start, end))
    return statistics.median(samples)


def main():
    module = cupy.RawModule(code=SOURCE)
    fill_linear, fill_surface = module.get_function("fill_linear"), module.get_function("fill_surface")
    print(f"{'size':>10} {'kernel into a CuPy array':>26} {'+ copy_from':>12} {'= total':>9} {'surface kernel':>15}  (ms, GPU)")
    for width, height in ((1920, 1080), (3840, 2160)):
        with interop_lab.Lab("pattern", size=(width, height)) as lab:
            stream = cupy.cuda.Stream(non_blocking=True)
            grid, block = ((width + 15) // 16, (height + 15) // 16), (16, 16)
            with stream:
                linear = cupy.empty((height, width, 4), dtype=cupy.uint8)
            with lab.map(stream=stream) as frame:
                texture = frame["pattern texture"]
                surface = texture.surface
                size = (cupy.int32(width), cupy.int32(height))
                with stream:
                    kernel_ms = timed(stream, lambda: fill_linear(grid, block, (linear, *size)))
                    copy_ms = timed(stream, lambda: texture.copy_from(linear))
                    surface_ms = timed(stream, lambda: fill_surface(grid, block, (cupy.uint64(surface), *size)))
            print(f"{width}x{height:<5} {kernel_ms:26.3f} {copy_ms:12.3f} {kernel_ms + copy_ms:9.3f} {surface_ms:15.3f}")


if __name__ == "__main__":
    main()
