"""PyTorch filters the `postprocess` scene: the GL-rendered cubes (a mapped texture) are copied into a
CUDA tensor on the lab's stream, a Sobel filter runs as two conv2d, and the result is copied into the
texture GL shows. Textures are cudaArrays, not linear memory: copy_to / copy_from move them
(cudaMemcpy2D{From,To}ArrayAsync). The frame must match the C++ path's golden.

    PYTHONPATH=build/release/python python3 examples/python/torch_postprocess.py [out.png]
"""

import sys

import torch
import torch.nn.functional as F

import interop_lab
from _golden import check, golden, out_path


def sobel(rgba):
    """kernels::sobel_texel, in float32: luminance gradients (edges clamped), a dark copy of the source,
    edges in a warm colour at full strength from a magnitude of 0.5."""
    source = rgba.float() / 255.0
    luminance = 0.299 * source[..., 0] + 0.587 * source[..., 1] + 0.114 * source[..., 2]
    padded = F.pad(luminance[None, None], (1, 1, 1, 1), mode="replicate")
    kx = torch.tensor([[-1.0, 0.0, 1.0], [-2.0, 0.0, 2.0], [-1.0, 0.0, 1.0]], device=rgba.device)
    gx = F.conv2d(padded, kx[None, None])[0, 0]
    gy = F.conv2d(padded, kx.t()[None, None])[0, 0]
    edge = torch.clamp(torch.sqrt(gx * gx + gy * gy) * 2.0, 0.0, 1.0)
    background = source[..., :3] * torch.tensor([0.18, 0.20, 0.26], device=rgba.device)
    colour = background + edge[..., None] * torch.tensor([1.0, 0.85, 0.45], device=rgba.device)
    out = torch.empty_like(rgba)
    out[..., :3] = (torch.clamp(colour, 0.0, 1.0) * 255.0 + 0.5).to(torch.uint8)
    out[..., 3] = rgba[..., 3]
    return out


def main():
    meta, _ = golden("postprocess")
    width, height = meta["width"], meta["height"]
    stream = torch.cuda.Stream()
    with interop_lab.Lab("postprocess", size=(width, height)) as lab:
        rendered = torch.empty((height, width, 4), dtype=torch.uint8, device="cuda")
        with lab.map(frame=meta["frame"], stream=stream) as frame, torch.cuda.stream(stream):
            frame["rendered scene"].copy_to(rendered)
            filtered = sobel(rendered).contiguous()
            frame["filtered image"].copy_from(filtered)
        del rendered, filtered
        # PyTorch caches freed device memory for reuse; hand it back so that a leak check
        # (compute-sanitizer --leak-check full) sees what the example itself holds: nothing.
        torch.cuda.empty_cache()
        lab.read_frame()
        return check(lab, "postprocess", out_path())


if __name__ == "__main__":
    sys.exit(main())
