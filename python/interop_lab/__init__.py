"""interop_lab: show your CUDA and NumPy arrays (interop_lab.show, interop_lab.Viewer: see viewer.py), and
write into what interop-lab's OpenGL scenes draw (interop_lab.Lab), from CuPy, PyTorch, cuda.core, Numba
or NumPy, without a copy through the host.

    import torch, interop_lab
    x = torch.rand(720, 1280, 3, device="cuda")
    v = interop_lab.Viewer()                                       # a window, or headless without a display
    v.show(x)                                                      # one device-to-device conversion at most
    v.screenshot("x.png")

    import interop_lab
    with interop_lab.Lab("pattern", size=(1280, 720)) as lab:     # headless GL + CUDA interop
        with lab.map(stream=s) as frame:                           # every resource, one map call, on s
            frame["pattern texture"].copy_from(image, stream=s)    # a texture: copy or surface object
        picture = lab.read_frame()                                  # (720, 1280, 4) uint8, top row first

What a map block yields, per resource of the scene (Lab.resources lists them):

- a GL *buffer* (the wave scene's vertices): a BufferView with __cuda_array_interface__ (version 3,
  with the stream) and __dlpack__/__dlpack_device__, so cupy.asarray(view), torch.from_dlpack(view)
  and cuda.core's StridedMemoryView see the mapped memory itself (float32, one dimension);
- a GL *texture*: a TextureView. A mapped texture is a cudaArray, whose layout is the driver's and not
  linear memory, so no array library can index it. It offers copy_to(array) / copy_from(array)
  (cudaMemcpy2D{From,To}ArrayAsync on the stream) and .surface, a surface object for your own kernels
  (surf2Dwrite / surf2Dread, e.g. from a CuPy RawKernel).

With mode="cpu" (no CUDA, e.g. CI) every resource is host memory instead: NumPy arrays through the
buffer protocol and __dlpack__ with a CPU device.

Order: the map and the unmap are queued on the stream you give (a CuPy / PyTorch / cuda.core stream or
a raw cudaStream_t; default the legacy default stream 0): what you queue there inside the block is
done before GL uses the resources, and nothing waits on the host. Arrays handed in on another stream
(their __cuda_array_interface__ names it) are ordered with an event.

Lifetime: after the block every view refuses use with InteropLabError. A CuPy or PyTorch array made
from a view still points at the mapped memory after the block: using it then is undefined. The lab
warns (ResourceWarning) when a DLPack tensor of the frame is still alive at the unmap; an array made
through __cuda_array_interface__ cannot be told from your own reference to the view, so it is not
reported.

Rows: textures hold their rows as GL does, row 0 at the bottom of the picture; read_frame() returns
the picture top row first.
"""

# The package's namespace holds its public API (__all__) and its submodules: what it imports for itself
# goes by a private name.
import contextlib as _contextlib
import ctypes as _ctypes
import warnings as _warnings

from . import _dlpack
from ._arrays import stream_handle as _stream_handle
from ._native import InteropLabError
from ._native import NativeHandle as _NativeHandle
from ._native import ResourceInfo as _ResourceInfo
from ._native import check as _check
from ._native import image_size as _image_size
from ._native import lib as _lib
from ._native import protocol_command as _protocol_command
from ._native import protocol_state as _protocol_state
from ._native import whole_number as _whole_number
from . import notebook  # interop_lab.notebook.close() and the rest of Jupyter's side
from .gl import GLBuffer, GLTexture, map_gl
from .publish import Publisher, PublishTarget, Subscriber, list_published, publish
from .viewer import FrameTarget, PathNotice, Viewer, show

__all__ = ["show", "Viewer", "FrameTarget", "PathNotice", "GLBuffer", "GLTexture", "map_gl", "Lab", "BufferView",
           "TextureView", "InteropLabError", "publish", "Publisher", "PublishTarget", "Subscriber", "list_published"]

# The project's one version, CMake's project(VERSION), as the native library was built with it.
__version__ = _lib.ilab_version().decode()


# A frame index crosses the C ABI as a long long.
_FRAME_MIN, _FRAME_MAX = -(2**63), 2**63 - 1


class _Frame:
    """What one map block yields: a view per resource, valid until the block ends."""

    def __init__(self, lab, stream):
        self._lab = lab
        self._stream = stream
        self._valid = True
        self._views = {}
        for index, info in enumerate(lab.resources):
            if not lab.uses_cuda:
                view = _HostView(self, index, info)
            elif info["kind"] == "buffer":
                view = BufferView(self, index, info)
            else:
                view = TextureView(self, index, info)
            self._views[info["label"]] = view

    def __getitem__(self, label):
        self._check()
        try:
            return self._views[label]
        except KeyError:
            raise KeyError(f"{label!r}: this scene's resources are {sorted(self._views)}") from None

    def __iter__(self):
        self._check()
        return iter(self._views.values())

    def __contains__(self, label):
        """Whether the scene has a resource of this label ("pattern texture" in frame)."""
        self._check()
        return label in self._views

    def keys(self):
        """The labels of the scene's resources, in Lab.resources' order."""
        self._check()
        return self._views.keys()

    def _check(self):
        if not self._valid:
            raise InteropLabError(
                "this frame was unmapped when its map block ended: its views point at nothing now; use them inside "
                "`with lab.map(): ...`"
            )


class _View:
    def __init__(self, frame, index, info):
        self._frame = frame
        self._index = index
        self.label = info["label"]
        self.role = info["role"]
        self.nbytes = info["bytes"]
        self.width, self.height = info["width"], info["height"]

    def _check(self):
        self._frame._check()

    def __repr__(self):
        state = "mapped" if self._frame._valid else "unmapped"
        return f"<{type(self).__name__} {self.label!r} ({self.role}, {self.nbytes} bytes, {state})>"


class BufferView(_View):
    """A mapped GL buffer as float32 device memory (zero copy), for CUDA array libraries."""

    typestr = "<f4"

    @property
    def pointer(self):
        self._check()
        pointer, size = _ctypes.c_size_t(), _ctypes.c_uint64()
        _check(_lib.ilab_pointer(self._frame._lab._handle, self._index, _ctypes.byref(pointer), _ctypes.byref(size)))
        return pointer.value

    @property
    def shape(self):
        return (self.nbytes // 4,)

    @property
    def __cuda_array_interface__(self):
        # Version 3: `stream` is where the memory was made available; a consumer on another stream
        # synchronises with it (CuPy and Numba do).
        return {
            "shape": self.shape,
            "typestr": self.typestr,
            "strides": None,
            "data": (self.pointer, self.role == "input"),
            "version": 3,
            "stream": self._frame._stream or 1,  # 1: the legacy default stream, as the protocol spells it
        }

    def __dlpack_device__(self):
        return (_dlpack.kDLCUDA, self._frame._lab.cuda_device)

    def __dlpack__(self, stream=None, **_):
        pointer = self.pointer
        # The DLPack handshake: the consumer names its stream; it must see the lab's work on ours.
        # None: the legacy default stream; -1: the consumer asks for no ordering; 1 and 2: the legacy and the
        # per-thread default stream.
        if stream != -1:
            consumer = 0 if stream in (None, 1, 2) else int(stream)
            _check(_lib.ilab_order_streams(self._frame._stream, consumer))
        return _dlpack.capsule(pointer, self.shape, (1,), self.typestr, _dlpack.kDLCUDA, self._frame._lab.cuda_device,
                               owner=self._frame)


def _device_array(array, view):
    """(pointer, pitch, stream) of a (height, width, 4) uint8 CUDA array for `view`, or an error naming the fix."""
    what, lab, width, height = view.label, view._frame._lab, view.width, view.height
    interface = getattr(array, "__cuda_array_interface__", None)
    if interface is None:
        raise TypeError(
            f"{what}: {type(array).__name__} is no CUDA array: pass a CuPy array, a PyTorch CUDA tensor or another "
            "object with __cuda_array_interface__ (NumPy arrays live on the host: use mode='cpu' or copy it over)"
        )
    shape, typestr = tuple(interface["shape"]), interface["typestr"]
    if typestr not in ("|u1", "<u1"):
        raise TypeError(f"{what}: dtype {typestr} where the texture is RGBA8: pass uint8 (e.g. .astype(cupy.uint8))")
    if 0 in shape:
        raise ValueError(f"{what}: the array is empty, shape {shape}")
    if shape != (height, width, 4):
        raise ValueError(f"{what}: shape {shape} where the texture needs ({height}, {width}, 4)")
    strides = interface.get("strides")
    pitch = width * 4
    if strides is not None:
        if tuple(strides[1:]) != (4, 1) or strides[0] < width * 4:
            raise ValueError(
                f"{what}: strides {tuple(strides)} are not row-major RGBA8 rows (want (pitch >= {width * 4}, 4, 1)): "
                "pass a C-contiguous array (cupy.ascontiguousarray / tensor.contiguous())"
            )
        pitch = strides[0]
    pointer = interface["data"][0]
    device = _ctypes.c_int()
    _check(_lib.ilab_pointer_device(pointer, _ctypes.byref(device)))
    if device.value != lab.cuda_device:
        where = "the host" if device.value < 0 else f"CUDA device {device.value}"
        raise ValueError(
            f"{what}: the array is on {where}, the lab on CUDA device {lab.cuda_device}: allocate it there "
            f"(with cupy.cuda.Device({lab.cuda_device}): ...)"
        )
    array_stream = interface.get("stream")
    return pointer, pitch, (0 if array_stream in (None, 1, 2) else array_stream)


class TextureView(_View):
    """A mapped GL texture (a cudaArray): copies to and from linear CUDA arrays, or a surface object."""

    @property
    def __cuda_array_interface__(self):
        # Array libraries ask for this; a cudaArray has none to give, and a pointer to it as if it were
        # linear memory would fault (cudaErrorIllegalAddress). Say so instead of an AttributeError.
        raise InteropLabError(
            f"{self.label!r} is a texture: its cudaArray is not linear memory, so no ndarray can view it; use "
            "copy_to(array) / copy_from(array), or .surface in your own kernel"
        )

    @property
    def surface(self):
        """A cudaSurfaceObject_t (an int) of the texture, for your kernels; valid in this map block only."""
        self._check()
        surface = _ctypes.c_ulonglong()
        _check(_lib.ilab_surface(self._frame._lab._handle, self._index, _ctypes.byref(surface)))
        return surface.value

    def _copy(self, array, to_texture, stream):
        self._check()
        pointer, pitch, array_stream = _device_array(array, self)
        ours = self._frame._stream if stream is None else _stream_handle(stream)
        if ours != self._frame._stream:
            _check(_lib.ilab_order_streams(self._frame._stream, ours))  # after the map
        if array_stream != ours:
            _check(_lib.ilab_order_streams(array_stream, ours))  # after the array's producer
        _check(_lib.ilab_copy_texture(self._frame._lab._handle, self._index, pointer, pitch, int(to_texture), ours))
        if ours != self._frame._stream:
            _check(_lib.ilab_order_streams(ours, self._frame._stream))  # before the unmap

    def copy_from(self, array, stream=None):
        """Texture <- a (height, width, 4) uint8 CUDA array, queued on `stream` (default: the map's)."""
        if self.role != "output":
            raise InteropLabError(f"{self.label!r} is what GL renders for the kernels to read: copy_to, not copy_from")
        self._copy(array, True, stream)

    def copy_to(self, array, stream=None):
        """A (height, width, 4) uint8 CUDA array <- the texture, queued on `stream` (default: the map's)."""
        self._copy(array, False, stream)


class _HostView(_View):
    """A resource in host memory (mode='cpu'): a NumPy-compatible buffer, uploaded to GL at the unmap."""

    def _memory(self):
        self._check()
        pointer, size = _ctypes.c_size_t(), _ctypes.c_uint64()
        _check(_lib.ilab_pointer(self._frame._lab._handle, self._index, _ctypes.byref(pointer), _ctypes.byref(size)))
        return (_ctypes.c_uint8 * size.value).from_address(pointer.value), pointer.value

    @property
    def shape(self):
        return (self.height, self.width, 4) if self.width else (self.nbytes // 4,)

    @property
    def typestr(self):
        return "|u1" if self.width else "<f4"

    @property
    def __array_interface__(self):
        _, pointer = self._memory()
        return {"shape": self.shape, "typestr": self.typestr, "data": (pointer, self.role == "input"), "version": 3}

    def __dlpack_device__(self):
        return (_dlpack.kDLCPU, 0)

    def __dlpack__(self, stream=None, **_):
        _, pointer = self._memory()
        strides = (self.width * 4, 4, 1) if self.width else (1,)
        return _dlpack.capsule(pointer, self.shape, strides, self.typestr, _dlpack.kDLCPU, 0, owner=self._frame)


class Lab(_NativeHandle):
    """One headless interop-lab context showing `scene` ('wave', 'pattern', 'postprocess') at `size`,
    whose GL objects you write. mode='interop' registers them with CUDA; mode='cpu' gives host memory."""

    def __init__(self, scene, size=(1280, 720), mode="interop", frame=0):
        self._handle = None  # set once opened: close() and __del__ see a lab that failed to open as closed
        width, height = _image_size(size)
        frame = _whole_number(frame, "frame", _FRAME_MIN, _FRAME_MAX)
        handle = _ctypes.c_void_p()
        _check(_lib.ilab_open(scene.encode(), mode.encode(), width, height, frame, _ctypes.byref(handle)))
        self._handle = handle
        self.scene, self.mode, self.size = scene, mode, (width, height)
        self._describe()
        self._mapped = None

    def _describe(self):
        """What the lab hands out: whether through CUDA, on which device, and its resources."""
        handle = self._handle
        self.uses_cuda = bool(_lib.ilab_uses_cuda(handle))
        self.cuda_device = _lib.ilab_cuda_device(handle)
        self.resources = []
        for index in range(_lib.ilab_resource_count(handle)):
            info = _ResourceInfo()
            _check(_lib.ilab_resource_info(handle, index, _ctypes.byref(info)))
            self.resources.append({
                "label": info.label.decode(),
                "kind": "buffer" if info.kind == 0 else "texture",
                "role": "output" if info.role == 0 else "input",
                "bytes": info.bytes,
                "width": info.width,
                "height": info.height,
            })

    def command(self, message):
        """Sends the lab one message of the app's page protocol (docs/browser.md), a dict such as
        {"scene": "postprocess"}, {"size": [640, 360]}, {"mode": "cpu"}, {"filter": "blur"} or
        {"map_flags": "read_only"}: applied now, as the page's and the panel's commands are, so the next map block
        hands out the new scene's, size's or mode's objects (`resources`, `scene`, `size` and `mode` follow).
        Returns "" or why the lab refused it (the app's own frames' controls, such as pause or fps: a lab's frames
        are yours); raises ValueError for a message the protocol does not take, InteropLabError inside a map
        block."""
        if not self._handle:
            raise InteropLabError("the lab is closed")
        refused = _protocol_command(_lib.ilab_command, self._handle, message)
        state = self.state
        self.scene, self.size = state["scene"], tuple(state["size"])
        self.mode = state["mode"]
        self._describe()
        return refused

    @property
    def state(self):
        """What the app's page is sent about the lab now, as a dict: the scene, the modes and why some do not
        run, the size, the flags each resource is registered with, the settings of every control."""
        if not self._handle:
            raise InteropLabError("the lab is closed")
        return _protocol_state(_lib.ilab_state, self._handle)

    def close(self):
        """Unregisters and destroys the lab (from the thread that opened it: elsewhere it refuses)."""
        if self._handle:
            _check(_lib.ilab_close(self._handle))
            self._handle = None


    @_contextlib.contextmanager
    def map(self, frame=0, stream=None):
        """Renders the scene's GL input for `frame`, maps every resource in one call on `stream` and yields
        the views; unmaps on the same stream when the block ends (also on an exception)."""
        if not self._handle:
            raise InteropLabError("the lab is closed")
        frame = _whole_number(frame, "frame", _FRAME_MIN, _FRAME_MAX)
        raw = _stream_handle(stream)
        _check(_lib.ilab_map(self._handle, frame, raw))
        mapped = _Frame(self, raw)
        try:
            yield mapped
        finally:
            mapped._valid = False
            held = _dlpack.alive_for(mapped)
            _check(_lib.ilab_unmap(self._handle))
            if held:
                _warnings.warn(
                    f"{held} DLPack tensor(s) of this frame are still alive at the unmap: they point at unmapped memory "
                    "now; copy what you need inside the map block",
                    ResourceWarning,
                    stacklevel=3,
                )

    def read_frame(self):
        """The frame GL shows now, as a (height, width, 4) uint8 NumPy array (top row first)."""
        width, height = _ctypes.c_int(), _ctypes.c_int()
        _check(_lib.ilab_read_frame(self._handle, None, 0, _ctypes.byref(width), _ctypes.byref(height)))
        buffer = (_ctypes.c_uint8 * (width.value * height.value * 4))()
        _check(_lib.ilab_read_frame(self._handle, buffer, len(buffer), _ctypes.byref(width), _ctypes.byref(height)))
        import numpy

        return numpy.frombuffer(buffer, dtype=numpy.uint8).reshape(height.value, width.value, 4)

    def compare_png(self, path, max_diff=0, max_fraction=0.0):
        """Compares the frame read last (read_frame) with a PNG by the goldens' rule (a pixel differs when a
        channel is more than max_diff/255 apart; they match while at most max_fraction of the pixels
        differ). Returns (matches, the comparer's summary)."""
        matches, report = _ctypes.c_int(), _ctypes.create_string_buffer(512)
        max_diff = _whole_number(max_diff, "max_diff", 0, 255)
        _check(_lib.ilab_compare_png(self._handle, str(path).encode(), max_diff, float(max_fraction),
                                   _ctypes.byref(matches), report, len(report)))
        return bool(matches.value), report.value.decode()

    def write_png(self, path):
        """Writes the frame read last as a PNG."""
        _check(_lib.ilab_write_png(self._handle, str(path).encode()))
