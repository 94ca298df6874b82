"""A DLPack capsule ("dltensor") for a buffer that interop-lab owns, built with ctypes.

The capsule's DLManagedTensor keeps its shape and strides alive until the consumer calls its deleter
(or, never consumed, until the capsule dies); the memory itself stays the lab's: it is valid only
inside the map block that produced it (see Lab.map)."""

import ctypes

kDLCPU, kDLCUDA, kDLCUDAHost, kDLCUDAManaged = 1, 2, 3, 13
_INT, _UINT, _FLOAT, _BFLOAT, _COMPLEX, _BOOL = 0, 1, 2, 4, 5, 6  # dlpack.h's DLDataTypeCode


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int),
        ("dtype", DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


class DLManagedTensor(ctypes.Structure):
    pass


_Deleter = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor))
DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", _Deleter)]

_pythonapi = ctypes.pythonapi
_pythonapi.PyCapsule_New.restype = ctypes.py_object
_pythonapi.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_pythonapi.PyCapsule_IsValid.restype = ctypes.c_int
_pythonapi.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
_pythonapi.PyCapsule_GetPointer.restype = ctypes.c_void_p
_pythonapi.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_pythonapi.PyCapsule_SetName.restype = ctypes.c_int
_pythonapi.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]
_USED_NAME = b"used_dltensor"  # the capsule keeps a pointer to this name: it lives as long as the module

# What each managed tensor keeps alive, by its address, until its deleter runs.
_alive = {}


@_Deleter
def _delete(managed):
    _alive.pop(ctypes.addressof(managed.contents), None)


_CapsuleDestructor = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


@_CapsuleDestructor
def _capsule_destructor(capsule):
    # A capsule still named "dltensor" was never consumed: its deleter is ours to call.
    capsule_object = ctypes.cast(capsule, ctypes.py_object)
    if _pythonapi.PyCapsule_IsValid(capsule_object, b"dltensor"):
        pointer = _pythonapi.PyCapsule_GetPointer(capsule_object, b"dltensor")
        managed = ctypes.cast(pointer, ctypes.POINTER(DLManagedTensor))
        managed.contents.deleter(managed)


def dtype_of(typestr):
    """A DLDataType for a NumPy typestr such as '<f4', '|u1' or '|b1', or for "bfloat16" (which NumPy has no
    typestr for)."""
    if typestr == "bfloat16":
        return DLDataType(_BFLOAT, 16, 1)
    code = {"i": _INT, "u": _UINT, "f": _FLOAT, "c": _COMPLEX, "b": _BOOL}[typestr[1]]
    return DLDataType(code, int(typestr[2:]) * 8, 1)


def alive_for(owner):
    """How many managed tensors made for `owner` have not been deleted by their consumer yet."""
    return sum(1 for entry in _alive.values() if entry[3] is owner)


def capsule(pointer, shape, strides_in_elements, typestr, device_type, device_id, owner=None):
    ndim = len(shape)
    managed = DLManagedTensor()
    shape_array = (ctypes.c_int64 * ndim)(*shape)
    strides_array = (ctypes.c_int64 * ndim)(*strides_in_elements)
    managed.dl_tensor.data = pointer
    managed.dl_tensor.device = DLDevice(device_type, device_id)
    managed.dl_tensor.ndim = ndim
    managed.dl_tensor.dtype = dtype_of(typestr)
    managed.dl_tensor.shape = shape_array
    managed.dl_tensor.strides = strides_array
    managed.dl_tensor.byte_offset = 0
    managed.deleter = _delete
    address = ctypes.addressof(managed)
    _alive[address] = (managed, shape_array, strides_array, owner)
    return _pythonapi.PyCapsule_New(address, b"dltensor", ctypes.cast(_capsule_destructor, ctypes.c_void_p))


def open_capsule(capsule):
    """Consumes someone else's DLPack capsule: (its DLTensor, a function that releases it). The capsule is
    renamed "used_dltensor" as the protocol asks, so its producer no longer deletes the tensor; release()
    calls the tensor's deleter once the memory is no longer needed."""
    pointer = _pythonapi.PyCapsule_GetPointer(capsule, b"dltensor")
    managed = ctypes.cast(pointer, ctypes.POINTER(DLManagedTensor))
    _pythonapi.PyCapsule_SetName(capsule, _USED_NAME)

    def release():
        if managed.contents.deleter:
            managed.contents.deleter(managed)

    return managed.contents.dl_tensor, release
