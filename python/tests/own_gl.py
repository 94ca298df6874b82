"""A GL context of the test's own, made with ctypes over libEGL (no interop_lab code): an OpenGL 4.5 core
context on the first EGL device that gives one (NVIDIA's on a GPU machine, Mesa's software device in CI),
with the few GL calls the tests need to make and read back their own buffers and textures."""

import ctypes

EGL_NONE, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_SURFACE_TYPE = 0x3038, 0x3040, 0x0008, 0x3033
EGL_OPENGL_API, EGL_PLATFORM_DEVICE_EXT = 0x30A2, 0x313F
EGL_CONTEXT_MAJOR_VERSION, EGL_CONTEXT_MINOR_VERSION, EGL_CONTEXT_OPENGL_PROFILE_MASK = 0x3098, 0x30FB, 0x30FD
GL_TEXTURE_2D, GL_RGBA8, GL_RGBA, GL_UNSIGNED_BYTE, GL_DYNAMIC_STORAGE_BIT = 0x0DE1, 0x8058, 0x1908, 0x1401, 0x0100


class OwnContext:
    def __init__(self):
        self.egl = egl = ctypes.CDLL("libEGL.so.1")
        egl.eglGetProcAddress.restype = ctypes.c_void_p
        egl.eglGetProcAddress.argtypes = [ctypes.c_char_p]
        for name, result, arguments in [
            ("eglInitialize", ctypes.c_uint, [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]),
            ("eglBindAPI", ctypes.c_uint, [ctypes.c_uint]),
            ("eglChooseConfig", ctypes.c_uint, [ctypes.c_void_p, ctypes.POINTER(ctypes.c_int),
                                                ctypes.POINTER(ctypes.c_void_p), ctypes.c_int,
                                                ctypes.POINTER(ctypes.c_int)]),
            ("eglCreateContext", ctypes.c_void_p, [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                                                   ctypes.POINTER(ctypes.c_int)]),
            ("eglMakeCurrent", ctypes.c_uint, [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]),
            ("eglDestroyContext", ctypes.c_uint, [ctypes.c_void_p, ctypes.c_void_p]),
            ("eglGetCurrentContext", ctypes.c_void_p, []),
        ]:
            getattr(egl, name).restype = result
            getattr(egl, name).argtypes = arguments
        query_devices = self._egl_function(b"eglQueryDevicesEXT", ctypes.c_uint, ctypes.c_int,
                                           ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_int))
        platform_display = self._egl_function(b"eglGetPlatformDisplayEXT", ctypes.c_void_p, ctypes.c_uint,
                                              ctypes.c_void_p, ctypes.POINTER(ctypes.c_int))
        devices, count = (ctypes.c_void_p * 16)(), ctypes.c_int()
        if not query_devices(16, devices, ctypes.byref(count)):
            raise RuntimeError("eglQueryDevicesEXT failed")
        self.display = self.context = None
        for index in range(count.value):
            display = platform_display(EGL_PLATFORM_DEVICE_EXT, devices[index], None)
            if display and egl.eglInitialize(display, None, None) and egl.eglBindAPI(EGL_OPENGL_API):
                config, configs = ctypes.c_void_p(), ctypes.c_int()
                attributes = (ctypes.c_int * 5)(EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_SURFACE_TYPE, 0, EGL_NONE)
                if not egl.eglChooseConfig(display, attributes, ctypes.byref(config), 1, ctypes.byref(configs)):
                    continue
                version = (ctypes.c_int * 7)(EGL_CONTEXT_MAJOR_VERSION, 4, EGL_CONTEXT_MINOR_VERSION, 5,
                                             EGL_CONTEXT_OPENGL_PROFILE_MASK, 1, EGL_NONE)
                context = egl.eglCreateContext(display, config, None, version)
                if context:
                    self.display, self.context = display, context
                    break
        if not self.context:
            raise RuntimeError("no EGL device gives an OpenGL 4.5 core context")
        self.make_current()
        gl = self._gl_function
        self.glCreateBuffers = gl(b"glCreateBuffers", None, ctypes.c_int, ctypes.POINTER(ctypes.c_uint))
        self.glNamedBufferStorage = gl(b"glNamedBufferStorage", None, ctypes.c_uint, ctypes.c_ssize_t,
                                       ctypes.c_void_p, ctypes.c_uint)
        self.glGetNamedBufferSubData = gl(b"glGetNamedBufferSubData", None, ctypes.c_uint, ctypes.c_ssize_t,
                                          ctypes.c_ssize_t, ctypes.c_void_p)
        self.glCreateTextures = gl(b"glCreateTextures", None, ctypes.c_uint, ctypes.c_int, ctypes.POINTER(ctypes.c_uint))
        self.glTextureStorage2D = gl(b"glTextureStorage2D", None, ctypes.c_uint, ctypes.c_int, ctypes.c_uint,
                                     ctypes.c_int, ctypes.c_int)
        self.glGetTextureImage = gl(b"glGetTextureImage", None, ctypes.c_uint, ctypes.c_int, ctypes.c_uint,
                                    ctypes.c_uint, ctypes.c_int, ctypes.c_void_p)
        self.glDeleteBuffers = gl(b"glDeleteBuffers", None, ctypes.c_int, ctypes.POINTER(ctypes.c_uint))
        self.glDeleteTextures = gl(b"glDeleteTextures", None, ctypes.c_int, ctypes.POINTER(ctypes.c_uint))
        self.glFinish = gl(b"glFinish", None)

    def _egl_function(self, name, result, *arguments):
        address = self.egl.eglGetProcAddress(name)
        if not address:
            raise RuntimeError(f"libEGL lacks {name.decode()}")
        return ctypes.CFUNCTYPE(result, *arguments)(address)

    _gl_function = _egl_function

    def make_current(self):
        if not self.egl.eglMakeCurrent(self.display, None, None, self.context):
            raise RuntimeError("eglMakeCurrent failed")

    def release(self):
        self.egl.eglMakeCurrent(self.display, None, None, None)

    def is_current(self):
        return self.egl.eglGetCurrentContext() == self.context

    def buffer(self, nbytes, data=None):
        name = ctypes.c_uint()
        self.glCreateBuffers(1, ctypes.byref(name))
        self.glNamedBufferStorage(name.value, nbytes, data, GL_DYNAMIC_STORAGE_BIT)
        return name.value

    def texture(self, width, height):
        name = ctypes.c_uint()
        self.glCreateTextures(GL_TEXTURE_2D, 1, ctypes.byref(name))
        self.glTextureStorage2D(name.value, 1, GL_RGBA8, width, height)
        return name.value

    def read_buffer(self, name, nbytes):
        data = (ctypes.c_uint8 * nbytes)()
        self.glGetNamedBufferSubData(name, 0, nbytes, data)
        return bytes(data)

    def read_texture(self, name, width, height):
        data = (ctypes.c_uint8 * (width * height * 4))()
        self.glGetTextureImage(name, 0, GL_RGBA, GL_UNSIGNED_BYTE, len(data), data)
        return bytes(data)

    def close(self):
        self.release()
        self.egl.eglDestroyContext(self.display, self.context)
