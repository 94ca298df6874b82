"""Colormaps for one-channel pictures: 256 RGBA8 entries each, as both conversion paths index them (the
CUDA kernel in kernels/convert.cu and NumPy in _arrays.py). 'viridis' and 'turbo' are polynomial fits of
matplotlib's viridis and Google's Turbo (within a few 1/255 of the published tables)."""

import numpy

_VIRIDIS = numpy.array([
    (0.2777273272234177, 0.005407344544966578, 0.3340998053353061),
    (0.1050930431085774, 1.404613529898575, 1.384590162594685),
    (-0.3308618287255563, 0.214847559468213, 0.09509516302823659),
    (-4.634230498983486, -5.799100973351585, -19.33244095627987),
    (6.228269936347081, 14.17993336680509, 56.69055260068105),
    (4.776384997670288, -13.74514537774601, -65.35303263337234),
    (-5.435455855934631, 4.645852612178535, 26.3124352495832),
])

_TURBO = numpy.array([  # rows: 1, t, t^2 ... t^5
    (0.13572138, 0.09140261, 0.10667330),
    (4.61539260, 2.19418839, 12.64194608),
    (-42.66032258, 4.84296658, -60.58204836),
    (132.13108234, -14.18503333, 110.36276771),
    (-152.94239396, 4.27729857, -89.90310912),
    (59.28637943, 2.82956604, 27.34824973),
])


def _polynomial(coefficients):
    t = numpy.linspace(0.0, 1.0, 256)[:, None]
    powers = t ** numpy.arange(len(coefficients))[None, :]
    rgb = numpy.clip(powers @ coefficients, 0.0, 1.0)
    table = numpy.full((256, 4), 255, dtype=numpy.uint8)
    table[:, :3] = numpy.floor(rgb * 255.0 + 0.5).astype(numpy.uint8)
    return table


def _gray():
    table = numpy.full((256, 4), 255, dtype=numpy.uint8)
    table[:, :3] = numpy.arange(256, dtype=numpy.uint8)[:, None]
    return table


_TABLES = {"gray": _gray, "viridis": lambda: _polynomial(_VIRIDIS), "turbo": lambda: _polynomial(_TURBO)}
_cache = {}

NAMES = tuple(_TABLES)


def table(colormap):
    """A C-contiguous (256, 4) uint8 table for a name in NAMES, or for a (256, 3|4) uint8 array of your own."""
    if colormap is None:
        colormap = "gray"
    if isinstance(colormap, str):
        if colormap not in _TABLES:
            raise ValueError(f"colormap {colormap!r}: use one of {', '.join(NAMES)}, or a (256, 3|4) uint8 array")
        if colormap not in _cache:
            _cache[colormap] = numpy.ascontiguousarray(_TABLES[colormap]())
        return _cache[colormap]
    custom = numpy.asarray(colormap)
    if custom.dtype != numpy.uint8 or custom.ndim != 2 or custom.shape[0] != 256 or custom.shape[1] not in (3, 4):
        raise ValueError(
            f"colormap: an array of shape {custom.shape} and dtype {custom.dtype}: pass a (256, 3|4) uint8 array, "
            f"or one of {', '.join(NAMES)}"
        )
    result = numpy.full((256, 4), 255, dtype=numpy.uint8)
    result[:, : custom.shape[1]] = custom
    return result
