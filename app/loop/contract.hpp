// app/loop/contract.hpp — what the one frame loop (app/loop/app.hpp) asks of a graphics API, checked by the
// compiler: loop::App<Backend> asserts check_backend<Backend>(), so an API that lacks a verb, or declares
// one with another signature, fails to compile with the verb's name and signature in the message, where the
// loop is instantiated (not deep inside a call). This is the contract; ARCHITECTURE.md points here.
//
// A Backend is a struct of static members that derives from lab::BackendDefaults (app/modes/backend.hpp: the
// optional verbs and their defaults). It names:
//   kApi, kSemaphoreChoice (the panel offers timeline/binary semaphores), Device, Renderer, Presenter
//   create_device(cuda, window, options)   the API's device on the CUDA device's GPU (any without CUDA); in a
//                                          window, for it (GL: the window's context); options: what the API
//                                          reads of the command line (GL: the headless size, vsync, debug)
//   device_name(device)                    for the panel and messages
//   timer_queries(renderer)                the API's GPU timer queries, or null
//   graphics_untimed(renderer)             why the graphics passes are not timed ("" when they are)
//   status_lines(device, presenter)        the panel's API-specific lines (present mode, validation)
//   mode_availability(mode, cuda, cuda_error, probe)  and create_mode(mode, cuda): the API's mode table
//   create_presenter(renderer, device, window, extent, with_ui, vsync)
//   window_desc(extent)                    the window's title and the remedies it says
// A Renderer is made from (Device&, Extent) and has PassSync (what a mode hands the passes), resize(extent),
// create_resources(descs, importable), destroy_resources(), resources() (each with its ResourceDesc `desc`),
// upload(index, data) and download(index, data) (the copying modes), draw_cubes(target, view, sync),
// draw_frame(plan, view_projection, sync), read_frame(plan) (top row first) and wait_idle().
// A Presenter has begin_ui_frame(), draw(plan, ui) (the frame and the panel into the back buffer),
// read_back_buffer() (what the window shows; empty where the API cannot read it), present(), resize(extent),
// vsync() and set_vsync(on).
#pragma once

#include "app/cli/cli.hpp"
#include "app/core/vocabulary.hpp"
#include "app/doctor/doctor.hpp"
#include "app/glfw/window.hpp"
#include "app/image/image_io.hpp"
#include "app/modes/backend.hpp"
#include "app/modes/mode.hpp"
#include "app/scene/scene_compute.hpp"
#include "app/timing/timing.hpp"

#include <glm/mat4x4.hpp>

#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

struct ImDrawData;

namespace lab::loop {

namespace contract {

// has<Verb, T>: whether the expression Verb<T> names is well-formed; gives<R, Verb, T>: and converts to R.
template <class, template <class...> class Verb, class... T>
struct Detect : std::false_type {};
template <template <class...> class Verb, class... T>
struct Detect<std::void_t<Verb<T...>>, Verb, T...> : std::true_type {};
template <template <class...> class Verb, class... T>
constexpr bool has = Detect<void, Verb, T...>::value;
template <class R, template <class...> class Verb, class... T>
constexpr bool gives() {
  if constexpr (has<Verb, T...>)
    return std::is_convertible_v<Verb<T...>, R>;
  else
    return false;
}

template <class T>
T& ref();  // std::declval as an lvalue

// A scope's name as the loop hands it to profile_scope: a callable that makes it.
struct ScopeName {
  std::string operator()() const;
};

// The Backend's verbs.
template <class B>
using Api = decltype(B::kApi);
template <class B>
using SemaphoreChoice = decltype(B::kSemaphoreChoice);
template <class B>
using CreateDevice =
    decltype(B::create_device(ref<const CudaContext>(), std::declval<glfw::Window*>(), ref<const Options>()));
template <class B>
using DeviceName = decltype(B::device_name(ref<const typename B::Device>()));
template <class B>
using TimerQueries = decltype(B::timer_queries(ref<typename B::Renderer>()));
template <class B>
using GraphicsUntimed = decltype(B::graphics_untimed(ref<const typename B::Renderer>()));
template <class B>
using StatusLines =
    decltype(B::status_lines(ref<const typename B::Device>(), std::declval<const typename B::Presenter*>()));
template <class B>
using Availability = decltype(B::mode_availability(
    ModeId{}, ref<const CudaContext>(), ref<const std::string>(), ref<const typename B::CudaProbe>()));
template <class B>
using CreateMode = decltype(B::create_mode(ModeId{}, ref<const CudaContext>()));
template <class B>
using CreatePresenter = decltype(B::create_presenter(ref<typename B::Renderer>(), ref<typename B::Device>(),
                                                     ref<glfw::Window>(), Extent{}, true, true));
template <class B>
using WindowDescOf = decltype(B::window_desc(Extent{}));
// The optional verbs, as an API that overrides one must declare it.
template <class B>
using ProbeCuda =
    decltype(B::probe_cuda(ref<const CudaContext>(), ref<typename B::Device>(), ref<const std::string>()));
template <class B>
using ProbeSummary = decltype(B::probe_summary(ref<const typename B::CudaProbe>()));
template <class B>
using SceneRule = decltype(B::scene_availability(ModeId{}, ref<const FrameSource>(), Extent{}));
template <class B>
using DefaultMode = decltype(B::default_mode(ref<const CudaContext>(), ref<const typename B::CudaProbe>()));
template <class B>
using CudaDevicesOf = decltype(B::cuda_devices_of(ref<typename B::Device>()));
template <class B>
using DoctorReportOf = decltype(B::doctor_report(ref<const CudaContext>(), ref<typename B::Device>(),
                                                 ref<const std::vector<DoctorSource>>()));
template <class B>
using ProfileScopeOf = decltype(B::profile_scope(ScopeName{}));
template <class B>
using FrameChecks =
    decltype(B::before_frame(ref<typename B::Device>()), B::after_frame(ref<typename B::Device>(), 0LL));
template <class B>
using DrawsFrame = decltype(B::draws_frame(ref<const typename B::Renderer>(), ref<const DrawPlan>()));
template <class B>
using GraphicsPhaseOf = decltype(typename B::GraphicsPhase(ref<FrameTimers>(), Phase::Draw));

// The Renderer's verbs.
template <class R>
using PassSync = typename R::PassSync;
template <class R>
using Resize = decltype(ref<R>().resize(Extent{}));
template <class R>
using CreateResources = decltype(ref<R>().create_resources(ref<const std::vector<ResourceDesc>>(), true));
template <class R>
using DestroyResources = decltype(ref<R>().destroy_resources());
template <class R>
using ResourceDescs = decltype(ref<const R>().resources().front().desc);
template <class R>
using Upload = decltype(ref<R>().upload(0, std::declval<const void*>()));
template <class R>
using Download = decltype(ref<R>().download(0, std::declval<void*>()));
template <class R>
using DrawCubes = decltype(ref<R>().draw_cubes(0, ref<const CubesView>(), ref<const typename R::PassSync>()));
template <class R>
using DrawFrame = decltype(ref<R>().draw_frame(ref<const DrawPlan>(), ref<const glm::mat4>(),
                                               ref<const typename R::PassSync>()));
template <class R>
using ReadFrame = decltype(ref<R>().read_frame(ref<const DrawPlan>()));
template <class R>
using WaitIdle = decltype(ref<R>().wait_idle());

// The Presenter's verbs.
template <class P>
using BeginUiFrame = decltype(ref<P>().begin_ui_frame());
template <class P>
using PresenterDraw = decltype(ref<P>().draw(ref<const DrawPlan>(), std::declval<ImDrawData*>()));
template <class P>
using ReadBackBuffer = decltype(ref<P>().read_back_buffer());
template <class P>
using Present = decltype(ref<P>().present());
template <class P>
using PresenterResize = decltype(ref<P>().resize(Extent{}));
template <class P>
using Vsync = decltype(ref<const P>().vsync());
template <class P>
using SetVsync = decltype(ref<P>().set_vsync(true));

template <class B>
using Renderer = typename B::Renderer;
template <class B>
using Presenter = typename B::Presenter;
template <class B>
using Device = typename B::Device;

}  // namespace contract

// Whether `Renderer` has every verb the loop and the copying modes call; fails to compile naming the first
// one it lacks.
template <class Renderer>
constexpr bool check_renderer() {
  using namespace contract;
  static_assert(has<PassSync, Renderer>, "Renderer::PassSync: what a mode hands the passes (NoPassSync)");
  if constexpr (has<PassSync, Renderer>) {
    static_assert(has<Resize, Renderer>, "Renderer::resize(Extent)");
    static_assert(has<CreateResources, Renderer>,
                  "Renderer::create_resources(const std::vector<ResourceDesc>&, bool importable)");
    static_assert(has<DestroyResources, Renderer>, "Renderer::destroy_resources()");
    static_assert(gives<ResourceDesc, ResourceDescs, Renderer>(),
                  "Renderer::resources() const: a container of resources, each with its ResourceDesc desc");
    static_assert(has<Upload, Renderer>, "Renderer::upload(int index, const void* data)");
    static_assert(has<Download, Renderer>, "Renderer::download(int index, void* data)");
    static_assert(has<DrawCubes, Renderer>,
                  "Renderer::draw_cubes(int target, const CubesView&, const PassSync&)");
    static_assert(has<DrawFrame, Renderer>,
                  "Renderer::draw_frame(const DrawPlan&, const glm::mat4& view_projection, const PassSync&)");
    static_assert(gives<Image, ReadFrame, Renderer>(), "Renderer::read_frame(const DrawPlan&) -> Image");
    static_assert(has<WaitIdle, Renderer>, "Renderer::wait_idle(): every pass queued so far done");
  }
  return true;
}

template <class Presenter>
constexpr bool check_presenter() {
  using namespace contract;
  static_assert(has<BeginUiFrame, Presenter>, "Presenter::begin_ui_frame()");
  static_assert(has<PresenterDraw, Presenter>, "Presenter::draw(const DrawPlan&, ImDrawData* ui)");
  static_assert(gives<Image, ReadBackBuffer, Presenter>(), "Presenter::read_back_buffer() -> Image");
  static_assert(has<Present, Presenter>, "Presenter::present()");
  static_assert(has<PresenterResize, Presenter>, "Presenter::resize(Extent)");
  static_assert(gives<bool, Vsync, Presenter>(), "Presenter::vsync() const -> bool");
  static_assert(has<SetVsync, Presenter>, "Presenter::set_vsync(bool)");
  return true;
}

// Whether `Backend` fills the contract above; fails to compile naming the first verb it lacks.
template <class Backend>
constexpr bool check_backend() {
  using namespace contract;
  static_assert(std::is_base_of_v<BackendDefaults, Backend>,
                "a Backend derives from lab::BackendDefaults (app/modes/backend.hpp): its optional verbs");
  static_assert(gives<GraphicsApi, Api, Backend>(), "Backend::kApi: the GraphicsApi");
  static_assert(gives<bool, SemaphoreChoice, Backend>(), "Backend::kSemaphoreChoice");
  static_assert(has<Device, Backend> && has<Renderer, Backend> && has<Presenter, Backend>,
                "Backend::Device, Backend::Renderer and Backend::Presenter");
  if constexpr (has<Device, Backend> && has<Renderer, Backend> && has<Presenter, Backend>) {
    using Dev = typename Backend::Device;
    using Ren = typename Backend::Renderer;
    using Pre = typename Backend::Presenter;
    static_assert(std::is_constructible_v<Ren, Dev&, Extent>, "Renderer(Device&, Extent)");
    static_assert(gives<std::unique_ptr<Dev>, CreateDevice, Backend>(),
                  "Backend::create_device(const CudaContext&, glfw::Window*, const Options&) -> "
                  "std::unique_ptr<Device>");
    static_assert(gives<std::string, DeviceName, Backend>(), "Backend::device_name(const Device&) -> string");
    static_assert(gives<std::unique_ptr<GpuTimerQueries>, TimerQueries, Backend>(),
                  "Backend::timer_queries(Renderer&) -> std::unique_ptr<GpuTimerQueries> (null: none)");
    static_assert(gives<std::string, GraphicsUntimed, Backend>(),
                  "Backend::graphics_untimed(const Renderer&) -> string");
    static_assert(gives<std::vector<std::pair<std::string, std::string>>, StatusLines, Backend>(),
                  "Backend::status_lines(const Device&, const Presenter*) -> vector<pair<string, string>>");
    static_assert(gives<ModeAvailability, Availability, Backend>(),
                  "Backend::mode_availability(ModeId, const CudaContext&, const std::string& cuda_error, "
                  "const CudaProbe&) -> ModeAvailability");
    static_assert(gives<std::unique_ptr<Mode<Ren>>, CreateMode, Backend>(),
                  "Backend::create_mode(ModeId, const CudaContext&) -> std::unique_ptr<Mode<Renderer>>");
    static_assert(gives<std::unique_ptr<Pre>, CreatePresenter, Backend>(),
                  "Backend::create_presenter(Renderer&, Device&, glfw::Window&, Extent, bool with_ui, bool "
                  "vsync) -> std::unique_ptr<Presenter>");
    static_assert(gives<glfw::WindowDesc, WindowDescOf, Backend>(),
                  "Backend::window_desc(Extent) -> WindowDesc");
    // The optional verbs (BackendDefaults), as an override must declare them.
    static_assert(gives<typename Backend::CudaProbe, ProbeCuda, Backend>(),
                  "Backend::probe_cuda(const CudaContext&, Device&, const std::string&) -> CudaProbe");
    static_assert(gives<std::string, ProbeSummary, Backend>(), "Backend::probe_summary(const CudaProbe&)");
    static_assert(gives<ModeAvailability, SceneRule, Backend>(),
                  "Backend::scene_availability(ModeId, const FrameSource&, Extent) -> ModeAvailability");
    static_assert(gives<ModeChoice, DefaultMode, Backend>(),
                  "Backend::default_mode(const CudaContext&, const CudaProbe&) -> ModeChoice");
    static_assert(gives<std::vector<int>, CudaDevicesOf, Backend>(),
                  "Backend::cuda_devices_of(Device&) -> std::vector<int>");
    static_assert(has<DoctorReportOf, Backend>,
                  "Backend::doctor_report(const CudaContext&, Device&, const std::vector<DoctorSource>&)");
    static_assert(has<ProfileScopeOf, Backend>,
                  "Backend::profile_scope(name): name is a callable that returns the scope's name");
    static_assert(has<FrameChecks, Backend>,
                  "Backend::before_frame(Device&), after_frame(Device&, long long)");
    static_assert(gives<bool, DrawsFrame, Backend>(),
                  "Backend::draws_frame(const Renderer&, const DrawPlan&) -> bool");
    static_assert(has<GraphicsPhaseOf, Backend>,
                  "Backend::GraphicsPhase(FrameTimers&, Phase): an RAII scope");
    static_assert(std::is_same_v<std::decay_t<decltype(Backend::kCudaDeviceSwitch)>, bool> &&
                      std::is_same_v<std::decay_t<decltype(Backend::kAccessFlags)>, bool>,
                  "Backend::kCudaDeviceSwitch and kAccessFlags: bool constants");
    static_assert(check_renderer<Ren>() && check_presenter<Pre>(), "");
  }
  return true;
}

}  // namespace lab::loop
