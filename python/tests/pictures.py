"""What the viewer tests compare against, computed independently of the package: PNGs decoded with zlib,
and the documented value rule written out again with NumPy."""

import struct
import zlib

import numpy


def decode_png(path):
    """An 8-bit RGB / RGBA, non-interlaced PNG as a (H, W, 4) uint8 array, with zlib and the five filters."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    at, idat, header = 8, b"", None
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        at += 12 + length
    width, height, depth, colour, _, _, interlace = header
    assert depth == 8 and interlace == 0 and colour in (2, 6)
    channels = 4 if colour == 6 else 3
    raw = numpy.frombuffer(zlib.decompress(idat), dtype=numpy.uint8).reshape(height, 1 + width * channels)
    rows = numpy.zeros((height, width, channels), dtype=numpy.int32)
    for y in range(height):
        kind, line = raw[y, 0], raw[y, 1:].astype(numpy.int32).reshape(width, channels)
        above = rows[y - 1] if y else numpy.zeros_like(line)
        if kind == 0:  # None
            rows[y] = line
        elif kind == 1:  # Sub: each byte adds the one a pixel to its left, so a running sum
            rows[y] = numpy.cumsum(line, axis=0) & 255
        elif kind == 2:  # Up
            rows[y] = (line + above) & 255
        else:  # Average, Paeth: pixel by pixel, every channel at once
            left = numpy.zeros(channels, numpy.int32)
            upper_left = numpy.zeros(channels, numpy.int32)
            for x in range(width):
                up = above[x]
                if kind == 3:
                    predicted = (left + up) // 2
                else:
                    p = left + up - upper_left
                    pa, pb, pc = numpy.abs(p - left), numpy.abs(p - up), numpy.abs(p - upper_left)
                    predicted = numpy.where((pa <= pb) & (pa <= pc), left, numpy.where(pb <= pc, up, upper_left))
                left = (line[x] + predicted) & 255
                rows[y, x] = left
                upper_left = up
    pixels = rows.astype(numpy.uint8)
    if channels == 3:
        pixels = numpy.concatenate([pixels, numpy.full((height, width, 1), 255, numpy.uint8)], axis=2)
    return pixels


def expected_bytes(values, low=0.0, high=1.0):
    """The documented rule, written out again: t = (v - low) / (high - low) clamped to [0, 1], round(t * 255)."""
    t = numpy.clip((values.astype(numpy.float64) - low) / (high - low), 0.0, 1.0)
    return numpy.floor(t * 255.0 + 0.5).astype(numpy.uint8)
