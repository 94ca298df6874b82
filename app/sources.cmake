# app/sources.cmake — the sources of each of app/'s libraries, as absolute paths. The main build
# (app/CMakeLists.txt and its folders) and the Windows cross build (tests/windows/CMakeLists.txt) both take
# them from here, so a file added to a library is listed once. WIN32 picks each system's own files.
set(app_dir ${CMAKE_CURRENT_LIST_DIR})

# app/os (labos)
set(lab_os_sources ${app_dir}/os/signals.cpp)
if(WIN32)
  list(APPEND lab_os_sources ${app_dir}/os/os_win32.cpp)
else()
  list(APPEND lab_os_sources ${app_dir}/os/os_posix.cpp)
endif()

# app/image (labimage)
set(lab_image_sources ${app_dir}/image/diff.cpp ${app_dir}/image/frame_pool.cpp ${app_dir}/image/golden.cpp ${app_dir}/image/image_compare.cpp
                      ${app_dir}/image/image_io.cpp ${app_dir}/image/screenshots.cpp)

# app/core (labcore): the ground
set(lab_core_sources ${app_dir}/core/vocabulary.cpp ${app_dir}/core/hotkeys.cpp ${app_dir}/core/serve_address.cpp)

# app/controls (labcontrols): the one control vocabulary
set(lab_controls_sources ${app_dir}/controls/controls.cpp)

# app/cli (labcli): the command line's parser and its remedies
set(lab_cli_sources ${app_dir}/cli/cli.cpp ${app_dir}/cli/remedy.cpp)

# app/modes (labmodes): what every API's modes share, and live mode switching
set(lab_modes_sources ${app_dir}/modes/access.cpp ${app_dir}/modes/mode_switch.cpp)

# app/timing (labtiming)
set(lab_timing_sources ${app_dir}/timing/bench_timing.cpp ${app_dir}/timing/profile_range.cpp
                       ${app_dir}/timing/timeline.cpp ${app_dir}/timing/timing.cpp
                       ${app_dir}/timing/timing_ui.cpp)

# app/scene (labscene)
set(lab_scene_sources ${app_dir}/scene/cuda_views.cpp ${app_dir}/scene/frame_graph.cpp ${app_dir}/scene/picture.cpp
                      ${app_dir}/scene/array_source.cpp ${app_dir}/scene/published_source.cpp ${app_dir}/scene/scene_compute.cpp
                      ${app_dir}/scene/readout.cpp ${app_dir}/scene/view.cpp ${app_dir}/scene/caller_controls.cpp
                      ${app_dir}/scene/orbit.cpp)

# app/d3d (labd3d): the rules every system builds
set(lab_d3d_rules_sources ${app_dir}/d3d/d3d_handoff.cpp ${app_dir}/d3d/dxgi_report.cpp)

# app/d3d11 (labd3d11), app/d3d12 (labd3d12): each Direct3D backend's CUDA modes, in the app's build; the
# Windows cross build compiles them on their own (its d3d_cuda_modes_compile_check)
set(lab_d3d11_cuda_mode_sources ${app_dir}/d3d11/cuda_modes.cpp ${app_dir}/d3d11/mode_interop.cpp
                                ${app_dir}/d3d11/mode_external.cpp)
set(lab_d3d12_cuda_mode_sources ${app_dir}/d3d12/cuda_modes.cpp ${app_dir}/d3d12/mode_external.cpp)

# app/bench (labbench): what every API's benchmark reports, and its writers
set(lab_bench_sources ${app_dir}/bench/report.cpp)

# app/doctor (labdoctor): the doctor's report; each API's folder brings its section
set(lab_doctor_sources ${app_dir}/doctor/doctor.cpp ${app_dir}/doctor/ui_doctor.cpp)
# app/d3d's section of the doctor (Windows: the DXGI adapters beside the CUDA devices' LUIDs), linked with
# GL's app, which collects the report
set(lab_d3d_doctor_sources)
if(WIN32)
  set(lab_d3d_doctor_sources ${app_dir}/d3d/doctor_d3d.cpp)
endif()

# app/serve (labserve): the browser desk
set(lab_serve_sources ${app_dir}/serve/desk.cpp ${app_dir}/serve/desk_bench.cpp ${app_dir}/serve/jpeg.cpp
                      ${app_dir}/serve/link.cpp ${app_dir}/serve/link_bench.cpp ${app_dir}/serve/protocol.cpp
                      ${app_dir}/serve/server.cpp ${app_dir}/serve/stripes.cpp)

# app/glfw (labglfw): the window
set(lab_glfw_sources ${app_dir}/glfw/panel_layout.cpp ${app_dir}/glfw/window.cpp)

# app/panel (labpanel): the panel's controls
set(lab_panel_sources ${app_dir}/panel/panel.cpp)

# app/gl (labapp); headless GL is EGL, which exists on Linux only: Windows gets the platform's refusal with a
# remedy.
set(lab_gl_sources)
foreach(source IN ITEMS backend cuda_frame_read doctor_gl frame_read gl_external gl_objects mode mode_buffer mode_external mode_interop
                        mode_pbo mode_split platform_glfw profiling renderer timing)
  list(APPEND lab_gl_sources ${app_dir}/gl/${source}.cpp)
endforeach()
if(WIN32)
  list(APPEND lab_gl_sources ${app_dir}/gl/platform_win32.cpp)
else()
  list(APPEND lab_gl_sources ${app_dir}/gl/platform_egl.cpp ${app_dir}/gl/mode_eglstream.cpp)
endif()

# app/gl/app (labglapp): GL's app, the loop on GL's backend, and its benchmark
set(lab_gl_app_sources)
foreach(source IN ITEMS bench bench_desk bench_external bench_loops bench_rows bench_throughput)
  list(APPEND lab_gl_app_sources ${app_dir}/gl/app/${source}.cpp)
endforeach()
if(NOT WIN32)
  list(APPEND lab_gl_app_sources ${app_dir}/gl/app/bench_eglstream.cpp)
endif()
