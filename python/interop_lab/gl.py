"""Your own GL objects with CUDA: register a GL buffer or texture from your current context, then map
several at once on a stream.

    buffer = interop_lab.GLBuffer(vbo)                          # your context current
    texture = interop_lab.GLTexture(tex, surface=True)          # GL_TEXTURE_2D by default
    with interop_lab.map_gl(buffer, texture, stream=s) as (b, t):   # one cudaGraphicsMapResources call
        cupy.asarray(b).view(cupy.float32)[...] = ...            # a buffer: device memory (uint8 bytes)
        kernel(..., t.surface)                                   # a texture: .array (cudaArray_t), .surface
    buffer.close(); texture.close()                             # unregisters with its context current

Each registration belongs to the thread and context it was made in; close() (or the garbage collector
on that thread) makes that context current to unregister and gives yours back. Delete the GL object
only after closing its registration.
"""

import contextlib
import ctypes

from . import _arrays, _dlpack
from ._native import InteropLabError, NativeHandle, check, lib, whole_number

__all__ = ["GLBuffer", "GLTexture", "map_gl", "GL_TEXTURE_2D", "GL_TEXTURE_RECTANGLE", "GL_TEXTURE_3D",
           "GL_TEXTURE_2D_ARRAY", "GL_TEXTURE_CUBE_MAP", "GL_RENDERBUFFER"]

GL_TEXTURE_2D, GL_TEXTURE_3D, GL_TEXTURE_RECTANGLE = 0x0DE1, 0x806F, 0x84F5
GL_TEXTURE_CUBE_MAP, GL_TEXTURE_2D_ARRAY, GL_RENDERBUFFER = 0x8513, 0x8C1A, 0x8D41
_ACCESS = {"read_write": 0, "read_only": 1, "write_discard": 2}
_GLUINT_MAX = 2**32 - 1  # names, targets, layers and levels cross the C ABI as unsigned ints

_signatures = {
    "ilab_gl_register": ([ctypes.c_int, ctypes.c_uint, ctypes.c_uint, ctypes.c_int, ctypes.c_int,
                          ctypes.POINTER(ctypes.c_void_p)], ctypes.c_int),
    "ilab_gl_registered_format": ([ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint)], ctypes.c_int),
    "ilab_gl_unregister": ([ctypes.c_void_p], ctypes.c_int),
    "ilab_gl_map": ([ctypes.POINTER(ctypes.c_void_p), ctypes.c_int, ctypes.c_size_t,
                     ctypes.POINTER(ctypes.c_void_p)], ctypes.c_int),
    "ilab_gl_mapped_pointer": ([ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(ctypes.c_size_t),
                                ctypes.POINTER(ctypes.c_uint64)], ctypes.c_int),
    "ilab_gl_mapped_array": ([ctypes.c_void_p, ctypes.c_int, ctypes.c_uint, ctypes.c_uint,
                              ctypes.POINTER(ctypes.c_size_t)], ctypes.c_int),
    "ilab_gl_mapped_surface": ([ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(ctypes.c_ulonglong)], ctypes.c_int),
    "ilab_gl_unmap": ([ctypes.c_void_p], ctypes.c_int),
}
for _name, (_arguments, _result) in _signatures.items():
    getattr(lib, _name).argtypes = _arguments
    getattr(lib, _name).restype = _result


class _Registration(NativeHandle):
    _kind = 0

    def __init__(self, name, target, access, surface):
        self._handle = None
        if access not in _ACCESS:
            raise ValueError(f"access {access!r}: use {', '.join(_ACCESS)}")
        if not isinstance(name, int) or isinstance(name, bool) or name <= 0:
            raise TypeError(f"name {name!r}: pass the GL object's name, a positive int (glCreateBuffers / glCreateTextures)")
        name = whole_number(name, "name", 1, _GLUINT_MAX)  # a GLuint: a larger int would wrap to another object
        target = whole_number(target, "target", 0, _GLUINT_MAX)
        handle = ctypes.c_void_p()
        check(lib.ilab_gl_register(self._kind, name, target, _ACCESS[access], int(bool(surface)),
                                   ctypes.byref(handle)))
        self._handle = handle
        self.name, self.target, self.access = name, target, access

    def close(self):
        """Unregisters (with the registering context current; from the registering thread)."""
        if self._handle:
            check(lib.ilab_gl_unregister(self._handle))
            self._handle = None


    def _live(self):
        if not self._handle:
            raise InteropLabError(f"{self!r} is closed (unregistered): register the object again")
        return self._handle

    def __repr__(self):
        return f"<{type(self).__name__} {self.name}{'' if self._handle else ' closed'}>"


class GLBuffer(_Registration):
    """A GL buffer of yours, registered with CUDA (access: read_write, read_only or write_discard)."""

    _kind = 0

    def __init__(self, name, access="read_write"):
        super().__init__(name, 0, access, False)


class GLTexture(_Registration):
    """A GL texture (or, with target=GL_RENDERBUFFER, a renderbuffer) of yours, registered with CUDA;
    surface=True lets kernels write it through a surface object."""

    _kind = 1

    def __init__(self, name, target=GL_TEXTURE_2D, access="read_write", surface=False):
        super().__init__(name, target, access, surface)
        internal_format = ctypes.c_uint()
        check(lib.ilab_gl_registered_format(self._handle, ctypes.byref(internal_format)))
        self.internal_format = internal_format.value


class MappedBuffer:
    """A mapped buffer: `nbytes` of device memory as uint8 (__cuda_array_interface__, __dlpack__); valid in
    its map_gl block."""

    typestr = "|u1"

    def __init__(self, mapping, index, device):
        self._mapping, self._index, self._device = mapping, index, device
        pointer, size = ctypes.c_size_t(), ctypes.c_uint64()
        check(lib.ilab_gl_mapped_pointer(mapping._handle, index, ctypes.byref(pointer), ctypes.byref(size)))
        self._pointer, self.nbytes = pointer.value, size.value
        self.shape = (self.nbytes,)

    @property
    def pointer(self):
        self._mapping._check()
        return self._pointer

    @property
    def __cuda_array_interface__(self):
        return {"shape": self.shape, "typestr": self.typestr, "strides": None, "data": (self.pointer, False),
                "version": 3, "stream": self._mapping.stream or 1}

    def __dlpack_device__(self):
        return (_dlpack.kDLCUDA, self._device)

    def __dlpack__(self, stream=None, **_):
        pointer = self.pointer
        if stream != -1:
            check(lib.ilab_order_streams(self._mapping.stream, 0 if stream in (None, 1, 2) else int(stream)))
        return _dlpack.capsule(pointer, self.shape, (1,), self.typestr, _dlpack.kDLCUDA, self._device,
                               owner=self._mapping)


class MappedTexture:
    """A mapped texture: .array (a cudaArray_t, as an int; array_at(layer, level) for others) and .surface
    (registered with surface=True); valid in its map_gl block."""

    def __init__(self, mapping, index):
        self._mapping, self._index = mapping, index

    def array_at(self, layer=0, level=0):
        self._mapping._check()
        layer = whole_number(layer, "layer", 0, _GLUINT_MAX)
        level = whole_number(level, "level", 0, _GLUINT_MAX)
        array = ctypes.c_size_t()
        check(lib.ilab_gl_mapped_array(self._mapping._handle, self._index, layer, level, ctypes.byref(array)))
        return array.value

    @property
    def array(self):
        return self.array_at(0, 0)

    @property
    def surface(self):
        self._mapping._check()
        surface = ctypes.c_ulonglong()
        check(lib.ilab_gl_mapped_surface(self._mapping._handle, self._index, ctypes.byref(surface)))
        return surface.value


class _Mapping:
    def __init__(self, handle, stream):
        self._handle, self.stream = handle, stream

    def _check(self):
        if not self._handle:
            raise InteropLabError("the map_gl block has ended: the objects are unmapped; use them inside it")


@contextlib.contextmanager
def map_gl(*objects, stream=None):
    """Maps GLBuffer / GLTexture objects in one call on `stream` and yields a view of each, in order;
    unmaps on the same stream when the block ends (after your work there; the host does not wait,
    unless a surface object was made)."""
    if len(objects) == 1 and isinstance(objects[0], (list, tuple)):
        objects = tuple(objects[0])
    if not objects:
        raise ValueError("map_gl: pass at least one GLBuffer or GLTexture")
    for position, item in enumerate(objects):
        if not isinstance(item, _Registration):
            raise TypeError(f"map_gl: argument {position} is a {type(item).__name__}: pass GLBuffer / GLTexture "
                            "objects (interop_lab.GLBuffer(name), interop_lab.GLTexture(name))")
    raw = _arrays.stream_handle(stream)
    handles = (ctypes.c_void_p * len(objects))(*[item._live() for item in objects])
    handle = ctypes.c_void_p()
    check(lib.ilab_gl_map(handles, len(objects), raw, ctypes.byref(handle)))
    mapping = _Mapping(handle, raw)
    try:
        device = ctypes.c_int()
        views = []
        for index, item in enumerate(objects):
            if isinstance(item, GLBuffer):
                pointer = ctypes.c_size_t()
                size = ctypes.c_uint64()
                check(lib.ilab_gl_mapped_pointer(handle, index, ctypes.byref(pointer), ctypes.byref(size)))
                check(lib.ilab_pointer_device(pointer.value, ctypes.byref(device)))
                views.append(MappedBuffer(mapping, index, device.value))
            else:
                views.append(MappedTexture(mapping, index))
        yield views
    finally:
        mapping._handle = None
        check(lib.ilab_gl_unmap(handle))
