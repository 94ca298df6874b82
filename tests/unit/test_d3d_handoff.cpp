// tests/unit/test_d3d_handoff.cpp — the Direct3D-free rules of the Direct3D backends' CUDA modes
// (app/d3d/d3d_handoff.hpp): which modes run with which devices and why not, the keyed-mutex steps played
// against a model of a keyed mutex, the fence values, and the import descs. No GPU, no Direct3D: the modes
// take exactly these steps and values.
#include "app/d3d/d3d_handoff.hpp"
#include "app/scene/cuda_views.hpp"

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace {

using lab::CudaAdapterFacts;
using lab::GraphicsApi;
using lab::ModeId;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A CUDA device with graphics, and a D3D device on it.
CudaAdapterFacts usable_facts() {
  CudaAdapterFacts facts;
  facts.cuda_device = 0;
  facts.cuda_name = "NVIDIA H200 (CUDA device 0)";
  facts.has_graphics_device = true;
  facts.graphics_on_cuda_device = true;
  facts.adapter = "NVIDIA H200 (LUID 0x0000000000012345)";
  return facts;
}

TEST(D3dCudaModeAvailability, EveryModeOfBothApisRunsWithADeviceOnTheCudaGpu) {
  for (const GraphicsApi api : {GraphicsApi::D3d11, GraphicsApi::D3d12})
    for (const ModeId mode : lab::modes_of(api)) {
      const lab::ModeAvailability availability = lab::cuda_mode_availability(api, mode, usable_facts());
      EXPECT_TRUE(availability.available)
          << lab::to_string(api) << " " << lab::to_string(mode) << ": " << availability.reason;
    }
}

TEST(D3dCudaModeAvailability, ModesOfOtherApisAreRefusedByName) {
  const lab::ModeAvailability pbo =
      lab::cuda_mode_availability(GraphicsApi::D3d11, ModeId::Pbo, usable_facts());
  EXPECT_FALSE(pbo.available);
  EXPECT_TRUE(contains(pbo.reason, "pbo is not a mode of --api d3d11")) << pbo.reason;
  // Direct3D 12 has no graphics interop in CUDA (no cudaGraphicsD3D12RegisterResource).
  const lab::ModeAvailability interop =
      lab::cuda_mode_availability(GraphicsApi::D3d12, ModeId::Interop, usable_facts());
  EXPECT_FALSE(interop.available);
  EXPECT_TRUE(contains(interop.reason, "interop is not a mode of --api d3d12")) << interop.reason;
}

TEST(D3dCudaModeAvailability, WithoutACudaDeviceOnlyCpuRunsAndTheReasonIsCudas) {
  CudaAdapterFacts facts;
  facts.cuda_error = "cudaGetDeviceCount: cudaErrorNoDevice";
  EXPECT_TRUE(lab::cuda_mode_availability(GraphicsApi::D3d11, ModeId::Cpu, facts).available);
  for (const ModeId mode : {ModeId::Interop, ModeId::Reregister, ModeId::Staging, ModeId::External}) {
    const lab::ModeAvailability availability = lab::cuda_mode_availability(GraphicsApi::D3d11, mode, facts);
    EXPECT_FALSE(availability.available) << lab::to_string(mode);
    EXPECT_TRUE(contains(availability.reason, "no CUDA device: cudaGetDeviceCount: cudaErrorNoDevice"))
        << availability.reason;
  }
  facts.cuda_error.clear();
  const lab::ModeAvailability unexplained =
      lab::cuda_mode_availability(GraphicsApi::D3d12, ModeId::Staging, facts);
  EXPECT_TRUE(contains(unexplained.reason, "CUDA_VISIBLE_DEVICES")) << unexplained.reason;
  EXPECT_TRUE(contains(unexplained.reason, "--mode cpu")) << unexplained.reason;
}

// The exported mode (CUDA allocates, the graphics API imports) is Vulkan's alone: Direct3D refuses it
// however good the device is, and says it is no mode of theirs.
TEST(D3dCudaModeAvailability, TheExportedModeIsNoModeOfDirect3D) {
  const CudaAdapterFacts facts = usable_facts();
  for (const GraphicsApi api : {GraphicsApi::D3d11, GraphicsApi::D3d12}) {
    const lab::ModeAvailability exported = lab::cuda_mode_availability(api, ModeId::Exported, facts);
    EXPECT_FALSE(exported.available) << lab::to_string(api);
    EXPECT_TRUE(
        contains(exported.reason, std::string("exported is not a mode of --api ") + lab::to_string(api)))
        << exported.reason;
  }
}

TEST(D3dCudaModeAvailability, ATccGpuHasNoGraphicsSoOnlyTheCopyingModesRun) {
  CudaAdapterFacts facts = usable_facts();
  facts.tcc_driver = true;
  facts.has_graphics_device = false;  // a TCC GPU has no DXGI adapter to create one on
  EXPECT_TRUE(lab::cuda_mode_availability(GraphicsApi::D3d11, ModeId::Staging, facts).available);
  EXPECT_TRUE(lab::cuda_mode_availability(GraphicsApi::D3d12, ModeId::Cpu, facts).available);
  for (const ModeId mode : {ModeId::Interop, ModeId::Reregister, ModeId::External}) {
    const lab::ModeAvailability availability = lab::cuda_mode_availability(GraphicsApi::D3d11, mode, facts);
    EXPECT_FALSE(availability.available) << lab::to_string(mode);
    EXPECT_TRUE(contains(availability.reason, "NVIDIA H200 (CUDA device 0) runs the TCC"))
        << availability.reason;
    EXPECT_TRUE(contains(availability.reason, "nvidia-smi -g N -dm 0")) << availability.reason;
    EXPECT_TRUE(contains(availability.reason, "--mode staging")) << availability.reason;
  }
  const lab::ModeAvailability external =
      lab::cuda_mode_availability(GraphicsApi::D3d12, ModeId::External, facts);
  EXPECT_TRUE(contains(external.reason, "Direct3D 12 cannot share memory")) << external.reason;
}

TEST(D3dCudaModeAvailability, ADeviceOnAnotherAdapterIsNamedWithTheCudaDevice) {
  CudaAdapterFacts facts = usable_facts();
  facts.graphics_on_cuda_device = false;
  facts.adapter = "WARP (Direct3D on the CPU)";
  for (const GraphicsApi api : {GraphicsApi::D3d11, GraphicsApi::D3d12}) {
    const lab::ModeAvailability external = lab::cuda_mode_availability(api, ModeId::External, facts);
    EXPECT_FALSE(external.available);
    EXPECT_TRUE(contains(external.reason,
                         "renders on WARP (Direct3D on the CPU), not on NVIDIA H200 (CUDA device 0)"))
        << external.reason;
    EXPECT_TRUE(contains(external.reason, "--mode staging")) << external.reason;
    // Copies through the host need no shared GPU.
    EXPECT_TRUE(lab::cuda_mode_availability(api, ModeId::Staging, facts).available);
  }
  // Before the Direct3D device exists only the CUDA side is judged.
  facts.has_graphics_device = false;
  EXPECT_TRUE(lab::cuda_mode_availability(GraphicsApi::D3d11, ModeId::Interop, facts).available);
}

TEST(D3dCudaModeAvailability, AnUnavailableModeThrowsItsReasonAtAttach) {
  lab::throw_if_unavailable(ModeId::Staging, {true, ""});
  try {
    lab::throw_if_unavailable(ModeId::Interop, {false, "because"});
    FAIL() << "no throw";
  } catch (const std::runtime_error& error) {
    EXPECT_EQ(std::string(error.what()), "--mode interop is unavailable: because");
  }
}

TEST(D3dCudaModeAvailability, TheCudaFactsOfNoDeviceKeepItsReason) {
  const CudaAdapterFacts none = lab::cuda_device_facts(-1, "cudaGetDeviceCount: cudaErrorNoDevice");
  EXPECT_EQ(none.cuda_device, -1);
  EXPECT_EQ(none.cuda_error, "cudaGetDeviceCount: cudaErrorNoDevice");
  // Device 0: its name where it exists; where it does not, the failed query is the reason.
  int count = 0;
  const bool has_device = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
  cudaGetLastError();
  const CudaAdapterFacts first = lab::cuda_device_facts(0, "");
  if (has_device) {
    EXPECT_EQ(first.cuda_device, 0);
    EXPECT_TRUE(contains(first.cuda_name, "(CUDA device 0)")) << first.cuda_name;
  } else {
    EXPECT_EQ(first.cuda_device, -1);
    EXPECT_TRUE(contains(first.cuda_error, "cudaGetDeviceProperties(0): cudaError")) << first.cuda_error;
  }
}

// A keyed mutex as DXGI defines it: created unowned with key 0; AcquireSync(key) succeeds only while it is
// unowned and was last released with `key`; ReleaseSync(key) by the owner leaves it unowned with `key`.
struct KeyedMutexModel {
  enum class Owner { None, Direct3D, Cuda } owner = Owner::None;
  uint64_t key = 0;

  static Owner owner_of(lab::MutexSide side) {
    return side == lab::MutexSide::Direct3D ? Owner::Direct3D : Owner::Cuda;
  }
  // False where the step would block forever or is not allowed.
  bool take(const lab::KeyedMutexStep& step) {
    if (step.op == lab::MutexOp::Acquire) {
      if (owner != Owner::None || key != step.key) return false;
      owner = owner_of(step.side);
      return true;
    }
    if (owner != owner_of(step.side)) return false;
    owner = Owner::None;
    key = step.key;
    return true;
  }
  bool take_all(lab::KeyedMutexPhase phase) {
    for (const lab::KeyedMutexStep& step : lab::keyed_mutex_steps(phase))
      if (!take(step)) return false;
    return true;
  }
};

TEST(KeyedMutexSteps, EachSideHoldsTheResourceWhenItUsesItFrameAfterFrame) {
  KeyedMutexModel mutex;
  ASSERT_TRUE(mutex.take_all(lab::KeyedMutexPhase::Attach));
  EXPECT_EQ(mutex.owner, KeyedMutexModel::Owner::Direct3D);  // the first cubes pass draws under it
  for (int frame = 0; frame < 3; ++frame) {
    ASSERT_TRUE(mutex.take_all(lab::KeyedMutexPhase::BeforeKernels)) << "frame " << frame;
    EXPECT_EQ(mutex.owner, KeyedMutexModel::Owner::Cuda) << "the kernels run under CUDA's hold";
    ASSERT_TRUE(mutex.take_all(lab::KeyedMutexPhase::AfterKernels)) << "frame " << frame;
    EXPECT_EQ(mutex.owner, KeyedMutexModel::Owner::Direct3D) << "the frame pass and read-back draw under it";
  }
  ASSERT_TRUE(mutex.take_all(lab::KeyedMutexPhase::Detach));
  EXPECT_EQ(mutex.owner, KeyedMutexModel::Owner::None);
  EXPECT_EQ(mutex.key, 0u) << "as created: a second attach starts the same way";
  EXPECT_TRUE(mutex.take_all(lab::KeyedMutexPhase::Attach));
}

TEST(KeyedMutexSteps, CudaTakesWhatDirect3DGaveAndGivesBackAnotherKey) {
  const auto& before = lab::keyed_mutex_steps(lab::KeyedMutexPhase::BeforeKernels);
  const auto& after = lab::keyed_mutex_steps(lab::KeyedMutexPhase::AfterKernels);
  ASSERT_EQ(before.size(), 2u);
  ASSERT_EQ(after.size(), 2u);
  EXPECT_EQ(before[0].side, lab::MutexSide::Direct3D);
  EXPECT_EQ(before[1].side, lab::MutexSide::Cuda);
  EXPECT_EQ(before[1].key, before[0].key);
  EXPECT_EQ(after[0].side, lab::MutexSide::Cuda);
  EXPECT_EQ(after[1].key, after[0].key);
  // Distinct keys: Direct3D's acquire cannot succeed before CUDA's release, nor CUDA's before Direct3D's.
  EXPECT_NE(before[0].key, after[0].key);
}

TEST(FenceTimeline, OneValueAStepAndEachWaitIsForTheSignalBeforeIt) {
  lab::FenceTimeline timeline;
  EXPECT_EQ(timeline.last(), 0u);  // the fence is created at 0: the first wait must be for more
  const lab::FenceFrame first = timeline.next_frame();
  EXPECT_EQ(first.graphics_signal, 1u);
  EXPECT_EQ(first.cuda_wait, 1u);
  EXPECT_EQ(first.cuda_signal, 2u);
  EXPECT_EQ(first.graphics_wait, 2u);
  uint64_t previous = first.graphics_wait;
  for (int frame = 1; frame < 100; ++frame) {
    const lab::FenceFrame values = timeline.next_frame();
    EXPECT_GT(values.graphics_signal, previous) << "a fence never goes back";
    EXPECT_EQ(values.cuda_wait, values.graphics_signal);
    EXPECT_GT(values.cuda_signal, values.cuda_wait);
    EXPECT_EQ(values.graphics_wait, values.cuda_signal);
    previous = values.graphics_wait;
  }
  EXPECT_EQ(timeline.last(), previous);
  EXPECT_GT(timeline.next_teardown(), previous);
}

TEST(SharedResourceImport, IsDedicatedWithTheAllocationsSize) {
  int handle = 0;
  const interop::ExternalMemoryDesc desc =
      lab::shared_resource_import(interop::ExternalHandleType::D3D12Resource, &handle, 65536);
  EXPECT_EQ(desc.type, interop::ExternalHandleType::D3D12Resource);
  EXPECT_EQ(desc.win32_handle, &handle);
  EXPECT_EQ(desc.size, 65536u);
  EXPECT_TRUE(desc.dedicated);
  EXPECT_FALSE(contains(interop::validate(desc), "dedicated")) << interop::validate(desc);
}

TEST(Rgba8Image, IsTheTextureExactlyAndWritableThroughSurfaces) {
  const interop::MipmappedArrayDesc image = lab::rgba8_image(320, 200);
  EXPECT_EQ(image.format.x, 8);
  EXPECT_EQ(image.format.y, 8);
  EXPECT_EQ(image.format.z, 8);
  EXPECT_EQ(image.format.w, 8);
  EXPECT_EQ(image.format.f, cudaChannelFormatKindUnsigned);
  EXPECT_EQ(image.extent.width, 320u);
  EXPECT_EQ(image.extent.height, 200u);
  EXPECT_EQ(image.extent.depth, 0u);  // 2D
  EXPECT_EQ(image.levels, 1u);
  EXPECT_EQ(image.flags, static_cast<unsigned int>(cudaArraySurfaceLoadStore | cudaArrayColorAttachment));
  EXPECT_EQ(interop::validate(image, 320 * 200 * 4), "");
}

}  // namespace
