// app/gl/app/bench_loops.cpp — the GL benchmark's raw loops (bench_loops.hpp): RawRegistrations, the bare
// loop and the modes' own loops, each the GL and CUDA work of its frame in the mode's order with raw calls.
#include "app/gl/app/bench_loops.hpp"

#include "app/gl/app/app.hpp"
#include "app/gl/app/bench_rows.hpp"
#include "app/gl/gl_objects.hpp"
#include "app/timing/bench_timing.hpp"
#include "app/timing/statistics.hpp"
#include "interop/error.hpp"
#include "interop/gl.hpp"
#include "interop/memory.hpp"
#include "kernels/common.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <utility>

namespace lab::gl {

Measurement summarize(std::string path, bench::Role role, const std::vector<double>& wall) {
  Measurement m;
  m.api = "gl";
  m.path = std::move(path);
  m.role = role;
  m.frames = static_cast<long long>(wall.size());
  m.median_ms = median(wall);
  m.p90_ms = percentile(wall, 0.9);
  return m;
}

// glFinish alone could return before CUDA work that no later GL command waits for (a headless image scene
// draws nothing after its unmap).
void finish_frame(App& app) {
  glFinish();
  if (const cudaStream_t stream = app.cuda_stream()) INTEROP_CUDA_CHECK(cudaStreamSynchronize(stream));
}

void draw_input(App& app, const FrameInfo& frame) {
  if (app.plan().cubes_target >= 0)
    app.renderer().draw_cubes(app.plan().cubes_target, cubes_view(frame.extent, frame.time));
}

void park(App& app) {
  app.request_mode(parking_mode());
  app.render_frame();
  finish_frame(app);
}

RawRegistrations::RawRegistrations(const std::vector<gl::Resource>& specs, cudaStream_t stream, bool surfaces)
    : m_specs(specs),
      m_stream(stream),
      m_resources(specs.size(), nullptr),
      m_arrays(specs.size(), nullptr),
      m_views(specs.size()) {
  try {
    for (size_t i = 0; i < specs.size(); ++i) {
      const bool output = specs[i].desc.role == ResourceRole::Output;
      if (specs[i].desc.kind == ResourceKind::Buffer || specs[i].linear) {
        INTEROP_CUDA_CHECK(cudaGraphicsGLRegisterBuffer(&m_resources[i], specs[i].gl_name,
                                                        cudaGraphicsRegisterFlagsWriteDiscard));
      } else {
        const unsigned int flags =
            !output    ? cudaGraphicsRegisterFlagsReadOnly
            : surfaces ? cudaGraphicsRegisterFlagsSurfaceLoadStore | cudaGraphicsRegisterFlagsWriteDiscard
                       : cudaGraphicsRegisterFlagsWriteDiscard;
        INTEROP_CUDA_CHECK(
            cudaGraphicsGLRegisterImage(&m_resources[i], specs[i].gl_name, GL_TEXTURE_2D, flags));
      }
    }
  } catch (...) {
    release();
    throw;
  }
}

RawRegistrations::~RawRegistrations() {
  release();
}

void RawRegistrations::map() {
  INTEROP_CUDA_CHECK(
      cudaGraphicsMapResources(static_cast<int>(m_resources.size()), m_resources.data(), m_stream));
}

void RawRegistrations::unmap() {
  INTEROP_CUDA_CHECK(
      cudaGraphicsUnmapResources(static_cast<int>(m_resources.size()), m_resources.data(), m_stream));
}

cudaArray_t RawRegistrations::array(size_t i) const {
  cudaArray_t array = nullptr;
  INTEROP_CUDA_CHECK(cudaGraphicsSubResourceGetMappedArray(&array, m_resources[i], 0, 0));
  return array;
}

const std::vector<CudaResourceView>& RawRegistrations::views() {
  for (size_t i = 0; i < m_specs.size(); ++i) {
    CudaResourceView& view = m_views[i];
    if (m_specs[i].desc.kind == ResourceKind::Buffer || m_specs[i].linear) {
      INTEROP_CUDA_CHECK(cudaGraphicsResourceGetMappedPointer(&view.pointer, &view.bytes, m_resources[i]));
      view.pitch = linear_pitch(m_specs[i].desc);  // an image in a buffer: rows tightly packed
      continue;
    }
    cudaArray_t array = nullptr;
    INTEROP_CUDA_CHECK(cudaGraphicsSubResourceGetMappedArray(&array, m_resources[i], 0, 0));
    if (array == m_arrays[i]) continue;
    m_arrays[i] = array;
    cudaResourceDesc resource{};
    resource.resType = cudaResourceTypeArray;
    resource.res.array.array = array;
    if (m_specs[i].desc.role == ResourceRole::Output) {
      if (view.surface) INTEROP_CUDA_CHECK(cudaDestroySurfaceObject(view.surface));
      INTEROP_CUDA_CHECK(cudaCreateSurfaceObject(&view.surface, &resource));
    } else {
      cudaTextureDesc texture{};
      texture.addressMode[0] = texture.addressMode[1] = cudaAddressModeClamp;
      texture.filterMode = cudaFilterModePoint;
      texture.readMode = cudaReadModeNormalizedFloat;
      if (view.texture) INTEROP_CUDA_CHECK(cudaDestroyTextureObject(view.texture));
      INTEROP_CUDA_CHECK(cudaCreateTextureObject(&view.texture, &resource, &texture, nullptr));
    }
  }
  return m_views;
}

void RawRegistrations::release() {
  cudaStreamSynchronize(m_stream);
  for (CudaResourceView& view : m_views) {
    if (view.surface) cudaDestroySurfaceObject(view.surface);
    if (view.texture) cudaDestroyTextureObject(view.texture);
    view = CudaResourceView{};
  }
  for (cudaGraphicsResource_t& resource : m_resources)
    if (resource) cudaGraphicsUnregisterResource(std::exchange(resource, nullptr));
}

Measurement measure_bare_loop(App& app, std::optional<long long> frames) {
  FrameSource& scene = app.scene();
  const cudaStream_t stream = app.cuda_stream();
  RawRegistrations raw(app.renderer().resources(), stream);
  const Extent extent = app.platform().framebuffer_extent();
  const std::vector<double> wall = time_frames(frames, [&](long long index) {
    const FrameInfo frame{index, kernels::time_of_frame(index), extent};
    draw_input(app, frame);
    raw.map();
    scene.compute_cuda(frame, raw.views(), stream);
    raw.unmap();
    app.show(frame);
    finish_frame(app);
  });
  return summarize("bare", bench::Role::Bare, wall);
}

namespace {

bool is(const gl::Resource& spec, ResourceRole role) {
  return spec.desc.role == role;
}

// An own loop's frames run alone: own_frame for each, labelled `path`.
Measurement own_frames(App& app, std::optional<long long> frames, const std::string& path,
                       const LoopWork& work) {
  const Extent extent = app.platform().framebuffer_extent();
  const std::vector<double> wall = time_frames(frames, [&](long long index) {
    own_frame(app, work, {index, kernels::time_of_frame(index), extent});
  });
  return summarize(path, bench::Role::Own, wall);
}

}  // namespace

void own_frame(App& app, const LoopWork& work, const FrameInfo& frame) {
  draw_input(app, frame);
  work(frame);
  app.show(frame);
  finish_frame(app);
}

// Registers before and unregisters after every frame, as the mode: the registration is the frame's own, and
// no other registration of the same GL objects is alive (the mode's lasts its frame too).
LoopWork reregister_work(App& app) {
  return [&scene = app.scene(), stream = app.cuda_stream(),
          specs = app.renderer().resources()](const FrameInfo& frame) {
    RawRegistrations registered(specs, stream);  // unregisters at the end of the scope, after a sync
    registered.map();
    scene.compute_cuda(frame, registered.views(), stream);
    registered.unmap();
  };
}

// GL copies what the kernels read into buffers of its own, CUDA maps those, GL copies the outputs back.
LoopWork pbo_work(App& app) {
  struct Loop {
    std::vector<gl::Resource> specs;
    std::vector<GlBuffer> buffers;
    std::optional<RawRegistrations> raw;  // its buffers, registered; unregistered before they go
  };
  const auto loop = std::make_shared<Loop>();
  loop->specs = app.renderer().resources();
  std::vector<gl::Resource> buffer_specs;  // its buffers, registered in place of the GL objects
  for (const gl::Resource& spec : loop->specs) {
    loop->buffers.push_back(create_buffer(spec.desc.bytes, nullptr, 0));
    gl::Resource buffer = spec;
    buffer.desc.kind = ResourceKind::Buffer;
    buffer.gl_name = loop->buffers.back().get();
    buffer_specs.push_back(buffer);
  }
  loop->raw.emplace(buffer_specs, app.cuda_stream());
  return [loop, &app, &scene = app.scene(), stream = app.cuda_stream()](const FrameInfo& frame) {
    const std::vector<gl::Resource>& specs = loop->specs;
    for (size_t i = 0; i < specs.size(); ++i)
      if (is(specs[i], ResourceRole::Input))
        app.renderer().copy_to_buffer(static_cast<int>(i), loop->buffers[i].get());
    loop->raw->map();
    std::vector<CudaResourceView> views = loop->raw->views();
    for (size_t i = 0; i < specs.size(); ++i) views[i].pitch = linear_pitch(specs[i].desc);
    scene.compute_cuda(frame, views, stream);
    loop->raw->unmap();
    for (size_t i = 0; i < specs.size(); ++i)
      if (is(specs[i], ResourceRole::Output))
        app.renderer().copy_from_buffer(static_cast<int>(i), loop->buffers[i].get());
  };
}

// The kernels on memory of their own, copied from and into the mapped GL objects on one device.
std::optional<Measurement> split_loop(App& app, std::optional<long long> frames) {
  if (app.compute_device() != app.cuda_device()) return std::nullopt;
  park(app);
  FrameSource& scene = app.scene();
  const cudaStream_t stream = app.cuda_stream();
  const std::vector<gl::Resource> specs = app.renderer().resources();
  std::vector<interop::DeviceBuffer> device;
  std::vector<CudaResourceView> linear;
  for (const gl::Resource& spec : specs) {
    device.emplace_back(spec.desc.bytes);
    linear.push_back(linear_view(device.back().data(), spec.desc));
  }
  RawRegistrations raw(specs, stream, false);
  return own_frames(app, frames, "split ref", [&](const FrameInfo& frame) {
    raw.map();
    for (size_t i = 0; i < specs.size(); ++i)
      if (is(specs[i], ResourceRole::Input))
        INTEROP_CUDA_CHECK(cudaMemcpy2DFromArrayAsync(
            device[i].data(), linear_pitch(specs[i].desc), raw.array(i), 0, 0, linear_pitch(specs[i].desc),
            specs[i].desc.height, cudaMemcpyDeviceToDevice, stream));
    scene.compute_cuda(frame, linear, stream);
    for (size_t i = 0; i < specs.size(); ++i) {
      if (!is(specs[i], ResourceRole::Output)) continue;
      if (specs[i].desc.kind == ResourceKind::Buffer) {
        INTEROP_CUDA_CHECK(cudaMemcpyAsync(raw.views()[i].pointer, device[i].data(), specs[i].desc.bytes,
                                           cudaMemcpyDeviceToDevice, stream));
      } else {
        INTEROP_CUDA_CHECK(cudaMemcpy2DToArrayAsync(raw.array(i), 0, 0, device[i].data(),
                                                    linear_pitch(specs[i].desc), linear_pitch(specs[i].desc),
                                                    specs[i].desc.height, cudaMemcpyDeviceToDevice, stream));
      }
    }
    raw.unmap();
  });
}

// The bare loop with the scene's images in GL buffers, as the mode places them (registered as buffers,
// written through their mapped pointers, shown from the buffer); they move back to textures afterwards.
std::optional<Measurement> buffer_loop(App& app, std::optional<long long> frames) {
  park(app);
  app.renderer().place_resources({nullptr, /*linear_images=*/true});
  Measurement measured = measure_bare_loop(app, frames);
  app.renderer().place_resources({});
  measured.path = "buffer ref";
  measured.role = bench::Role::Own;
  return measured;
}

// GL downloads what the kernels read into pinned memory, CUDA copies it in, runs the kernels and copies the
// outputs back, waits, and GL uploads them into the scene's textures (textures, as the mode finds them).
LoopWork staging_work(App& app) {
  struct Loop {
    std::vector<gl::Resource> specs;
    std::vector<interop::DeviceBuffer> device;
    std::vector<interop::PinnedHostBuffer> host;
    std::vector<CudaResourceView> linear;
  };
  const auto loop = std::make_shared<Loop>();
  loop->specs = app.renderer().resources();
  for (const gl::Resource& spec : loop->specs) {
    loop->device.emplace_back(spec.desc.bytes);
    loop->linear.push_back(linear_view(loop->device.back().data(), spec.desc));
    loop->host.emplace_back(spec.desc.bytes);
  }
  return [loop, &app, &scene = app.scene(), stream = app.cuda_stream()](const FrameInfo& frame) {
    const std::vector<gl::Resource>& specs = loop->specs;
    for (size_t i = 0; i < specs.size(); ++i)
      if (is(specs[i], ResourceRole::Input)) {
        app.renderer().download(static_cast<int>(i), loop->host[i].data());
        INTEROP_CUDA_CHECK(cudaMemcpyAsync(loop->device[i].data(), loop->host[i].data(), specs[i].desc.bytes,
                                           cudaMemcpyHostToDevice, stream));
      }
    scene.compute_cuda(frame, loop->linear, stream);
    for (size_t i = 0; i < specs.size(); ++i)
      if (is(specs[i], ResourceRole::Output))
        INTEROP_CUDA_CHECK(cudaMemcpyAsync(loop->host[i].data(), loop->device[i].data(), specs[i].desc.bytes,
                                           cudaMemcpyDeviceToHost, stream));
    INTEROP_CUDA_CHECK(cudaStreamSynchronize(stream));
    for (size_t i = 0; i < specs.size(); ++i)
      if (is(specs[i], ResourceRole::Output))
        app.renderer().upload(static_cast<int>(i), loop->host[i].data());
  };
}

// The CPU reference on ordinary host memory, downloaded into and uploaded from; no CUDA.
LoopWork cpu_work(App& app) {
  struct Loop {
    std::vector<gl::Resource> specs;
    std::vector<std::vector<uint8_t>> plain;
    std::vector<HostResourceView> host_views;
  };
  const auto loop = std::make_shared<Loop>();
  loop->specs = app.renderer().resources();
  for (const gl::Resource& spec : loop->specs) {
    loop->plain.emplace_back(spec.desc.bytes);
    loop->host_views.push_back({loop->plain.back().data(), spec.desc.bytes, linear_pitch(spec.desc)});
  }
  return [loop, &app, &scene = app.scene()](const FrameInfo& frame) {
    const std::vector<gl::Resource>& specs = loop->specs;
    for (size_t i = 0; i < specs.size(); ++i)
      if (is(specs[i], ResourceRole::Input))
        app.renderer().download(static_cast<int>(i), loop->plain[i].data());
    scene.compute_cpu(frame, loop->host_views);
    for (size_t i = 0; i < specs.size(); ++i)
      if (is(specs[i], ResourceRole::Output))
        app.renderer().upload(static_cast<int>(i), loop->plain[i].data());
  };
}

#ifdef _WIN32
// EGLStreams are EGL's, which GL on Windows has not (nor the mode, which is never available there).
std::optional<Measurement> eglstream_loop(App&, std::optional<long long>, long long*) {
  return std::nullopt;
}
#endif

}  // namespace lab::gl
