"""The viewer as a tool for your own data, on the cpu path (NumPy arrays; headless EGL on Mesa, and windows under
Xvfb where DISPLAY is set): stacks of frames and their index, the value under the cursor, the fits, zoom and
pan, pause and step, and your own controls. Window input goes in through Viewer._inject, the way GLFW hands it
to the window's ImGui. Expected pictures are computed here with NumPy; CUDA arrays are test_viewer_gpu.py's."""

import os
import threading
import warnings

import numpy
import pytest

import interop_lab
from interop_lab import InteropLabError
from pictures import expected_bytes


def open_viewer(size, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", interop_lab.PathNotice)
        return interop_lab.Viewer(size=size, mode="cpu", **options)


@pytest.fixture
def viewer():
    with open_viewer((40, 24), window=False) as opened:
        yield opened


def needs_display():
    if not os.environ.get("DISPLAY"):
        pytest.skip("needs an X display (run under xvfb-run)")


@pytest.fixture
def window():
    needs_display()
    with open_viewer((1280, 720), window=True) as opened:
        yield opened


def distinct_picture(height, width):
    """Each pixel a colour of its own: (x, y) in red-green and blue, so a pixel found in a frame says where it
    came from."""
    y, x = numpy.mgrid[0:height, 0:width]
    picture = numpy.empty((height, width, 4), numpy.uint8)
    picture[..., 0], picture[..., 1], picture[..., 2], picture[..., 3] = x % 256, y % 256, (x // 256) * 16 + y // 256, 255
    return picture


# Stacks ------------------------------------------------------------------------------------------------------


def test_a_stack_shows_the_frame_its_index_picks(viewer):
    stack = numpy.random.default_rng(1).random((5, 24, 40)).astype(numpy.float32)
    viewer.show(stack)
    assert viewer.frames == 5 and viewer.index == 0
    assert numpy.abs(viewer.read_frame()[..., 0].astype(int) - expected_bytes(stack[0])).max() <= 1
    viewer.index = 3
    assert viewer.index == 3
    assert numpy.abs(viewer.read_frame()[..., 0].astype(int) - expected_bytes(stack[3])).max() <= 1
    viewer.show(stack * 0.5)  # the next stack shown keeps the index
    assert viewer.index == 3
    assert numpy.abs(viewer.read_frame()[..., 0].astype(int) - expected_bytes(stack[3] * 0.5)).max() <= 1
    with pytest.raises(ValueError, match="index 5: from 0 to 4"):
        viewer.index = 5


def test_a_stack_of_rgba_frames_and_what_a_3d_shape_means(viewer):
    frames = numpy.stack([distinct_picture(24, 40) // (n + 1) for n in range(3)])
    viewer.show(frames)
    viewer.index = 2
    numpy.testing.assert_array_equal(viewer.read_frame()[..., :3], frames[2][..., :3])
    rgb = numpy.random.default_rng(2).integers(0, 256, (24, 40, 3), dtype=numpy.uint8)
    viewer.show(rgb)  # a last edge of 1, 3 or 4 is channels: one picture
    assert viewer.frames == 1 and viewer.index == 0
    numpy.testing.assert_array_equal(viewer.read_frame()[..., :3], rgb)
    viewer.show(numpy.zeros((2, 24, 40), numpy.uint8))  # a last edge above 4: frames
    assert viewer.frames == 2


def test_auto_of_a_stack_is_every_frames_min_and_max(viewer):
    stack = numpy.stack([numpy.full((24, 40), value, numpy.float32) for value in (1.0, 5.0, 3.0)])
    assert viewer.show(stack, range="auto") == (1.0, 5.0)
    assert (viewer.read_frame()[..., 0] == 0).all()


# The value under the cursor -------------------------------------------------------------------------------


def test_value_at_is_the_arrays_own_value_not_the_byte(viewer):
    values = numpy.random.default_rng(3).random((24, 40))
    values[4, 7] = 0.12345678901234567
    viewer.show(values)
    assert viewer.value_at(7, 4) == 0.12345678901234567 and isinstance(viewer.value_at(7, 4), numpy.float64)
    integers = (numpy.arange(24 * 40, dtype=numpy.int32) * 1000003).reshape(24, 40)
    viewer.show(integers)
    assert viewer.value_at(39, 23) == integers[23, 39]
    rgb = numpy.random.default_rng(4).random((24, 40, 3)).astype(numpy.float16)
    viewer.show(rgb)
    assert viewer.value_at(1, 2) == tuple(rgb[2, 1])
    stack = numpy.arange(3 * 24 * 40, dtype=numpy.uint16).reshape(3, 24, 40)
    viewer.show(stack)
    viewer.index = 2
    assert viewer.value_at(5, 6) == stack[2, 6, 5]
    with pytest.raises(ValueError, match="value_at: x 40: from 0 to 39"):
        viewer.value_at(40, 0)
    with viewer.frame() as target:
        target[...] = 1
    with pytest.raises(InteropLabError, match="frame\\(\\) block's pixels"):
        viewer.value_at(0, 0)


# Fits, zoom and pan ---------------------------------------------------------------------------------------


def test_the_default_fit_keeps_the_aspect_with_black_bars(viewer):
    square = numpy.full((12, 12, 4), 200, numpy.uint8)
    viewer.show(square)
    frame = viewer.read_frame()  # 24x24 in the middle of 40x24
    assert viewer.fit == "contain"
    assert (frame[:, 8:32, :3] == 200).all() and (frame[:, :8, :3] == 0).all() and (frame[:, 32:, :3] == 0).all()
    viewer.fit = "stretch"
    assert (viewer.read_frame()[..., :3] == 200).all()
    viewer.fit = "cover"  # 40x40, its top and bottom cut off
    assert (viewer.read_frame()[..., :3] == 200).all()
    viewer.fit = "actual"  # 1:1 in the middle
    frame = viewer.read_frame()
    assert (frame[6:18, 14:26, :3] == 200).all() and frame[..., 0].sum() == 12 * 12 * 200
    with pytest.raises(ValueError, match="fit='fill': pass one of contain, stretch, cover, actual"):
        viewer.fit = "fill"
    with pytest.raises(ValueError, match="fit='fill'"):
        open_viewer((8, 8), window=False, fit="fill")


def test_a_picture_of_the_frames_aspect_reads_back_as_it_did_before_fits(viewer):
    picture = distinct_picture(9, 15)  # 15x9 in 40x24: the aspect of the frame, at no whole scale
    viewer.show(picture)
    # The rule every frame was drawn by before fits: pixel * image / frame, in GL's bottom-up rows.
    up = 23 - numpy.arange(24)
    rows = 8 - (up * 9 // 24)
    columns = numpy.arange(40) * 15 // 40
    numpy.testing.assert_array_equal(viewer.read_frame(), picture[rows][:, columns])


def test_zoomed_in_each_pixel_is_a_block_of_one_colour(viewer):
    viewer.resize(64, 64)
    picture = distinct_picture(4, 4)
    viewer.show(picture)
    viewer.zoom(2.0, at=(0, 0))  # contain is 16 pixels an image pixel; now 32, from the top-left corner
    assert viewer.view["scale"] == (32.0, 32.0) and viewer.view["free"]
    expected = numpy.repeat(numpy.repeat(picture[:2, :2], 32, axis=0), 32, axis=1)
    numpy.testing.assert_array_equal(viewer.read_frame(), expected)
    viewer.pan(-32, 0)  # one image pixel to the left
    numpy.testing.assert_array_equal(viewer.read_frame()[0, 0], picture[0, 1])
    viewer.actual_size(at=(0, 0))
    assert viewer.view["scale"] == (1.0, 1.0)
    viewer.fit = "contain"  # back to the fit
    assert not viewer.view["free"]
    numpy.testing.assert_array_equal(viewer.read_frame(), numpy.repeat(numpy.repeat(picture, 16, axis=0), 16, axis=1))


# Time -----------------------------------------------------------------------------------------------------


def test_pause_stops_the_loop_and_a_step_lets_one_frame_through(viewer):
    assert viewer.poll() and not viewer.paused
    viewer.paused = True
    advanced = sum(viewer.poll(fps=1000) for _ in range(5))
    assert advanced == 0
    viewer.step()
    assert [viewer.poll(fps=1000) for _ in range(3)] == [True, False, False]
    assert viewer.paused  # a step leaves it paused
    viewer.paused = False
    assert viewer.poll()


# Your own controls ----------------------------------------------------------------------------------------


def test_controls_hold_values_and_run_callbacks_on_the_callers_thread_at_poll(viewer):
    seen = []
    exposure = viewer.slider("exposure", 0.0, 4.0, value=1.0, callback=lambda v: seen.append(("exposure", v,
                                                                                               threading.get_ident())))
    smooth = viewer.checkbox("smooth")
    reset = viewer.button("reset", callback=lambda: seen.append(("reset",)))
    colormap = viewer.choice("colormap", ["gray", "viridis", "turbo"], value="viridis")
    assert (exposure.value, smooth.value, reset.value, colormap.value) == (1.0, False, 0, "viridis")
    # What the panel does when the user moves them (the window tests click them for real).
    exposure._set_raw(2.5, user=True)
    reset._set_raw(1, user=True)
    reset._set_raw(1, user=True)
    assert exposure.value == 2.5 and seen == []  # callbacks wait for poll()
    viewer.poll()
    assert seen == [("exposure", 2.5, threading.get_ident()), ("reset",), ("reset",)]
    assert reset.value == 2 and reset.clicked and reset.clicked and not reset.clicked
    viewer.poll()
    assert len(seen) == 3  # each change once
    exposure.value = 3.0  # the program's own setting runs no callback
    smooth.value = True
    colormap.value = "turbo"
    viewer.poll()
    assert (exposure.value, smooth.value, colormap.value, len(seen)) == (3.0, True, "turbo", 3)


def test_python_speaks_the_pages_protocol_and_reads_its_state(viewer):
    values = numpy.arange(24 * 40, dtype=numpy.float64).reshape(24, 40) / 1000.0
    stack = numpy.stack([values, values * 2, values * 3])
    gain = viewer.slider("gain", 0.0, 4.0, value=1.0)
    mapping = viewer.choice("map", ["gray", "viridis"])
    viewer.show(stack)
    state = viewer.state
    assert state["source"] == "array" and state["mode"] == "cpu"  # the loop's array source, in cpu mode
    tools = state["viewer"]
    assert (tools["index"], tools["frames"]) == (0, 3)
    assert [c["name"] for c in tools["controls"]] == ["gain", "map"]

    # The cursor's value, as the page's hover reads it: the array's own, not its byte.
    assert viewer.command({"hover": [7.5, 2.5]}) == ""
    assert viewer.state["viewer"]["cursor"] == [7, 2]
    assert "0.087" in viewer.state["viewer"]["readout"]  # values[2, 7] = 0.087

    # The view's moves, as the panel's and the page's: zoomed 2x about the corner, then fit again.
    assert viewer.command({"zoom": [0, 0, 2.0]}) == ""
    assert viewer.state["viewer"]["free"] is True
    assert viewer.state["viewer"]["scale"][0] == 2.0
    zoomed = viewer.read_frame()
    assert (zoomed[0:2, 0:2] == zoomed[0, 0]).all(), "one picture pixel a 2x2 block"
    assert viewer.command({"fit": True}) == ""
    assert viewer.state["viewer"]["free"] is False

    # A stack's frame and your controls: taken now, shown and called back at the next poll().
    assert viewer.command({"index": 2}) == ""
    assert viewer.command({"control": {"name": "gain", "value": 2.5}}) == ""
    assert viewer.command({"control": {"name": "map", "value": "viridis"}}) == ""
    viewer.poll()
    assert viewer.index == 2 and gain.value == 2.5 and mapping.value == "viridis"
    assert numpy.abs(viewer.read_frame()[..., 0].astype(int) - expected_bytes(stack[2])).max() <= 1
    assert viewer.command({"pause": True}) == ""
    assert viewer.paused and viewer.state["settings"]["switches"]["pause"]["on"] is True
    assert viewer.command({"picture_fit": "cover"}) == ""
    assert viewer.state["settings"]["choices"]["picture_fit"]["value"] == "cover"
    assert viewer.state["viewer"]["fit"] == "cover"
    viewer.paused = False

    # Refused, saying why, and nothing changes; a message the protocol does not take raises.
    assert viewer.command({"index": 3}) == "index 3: the array shown has 3 frames: pass one from 0 to 2"
    assert viewer.command({"control": {"name": "gain", "value": 9}}) == (
        "slider 'gain': value 9 is outside 0..4: pass one within the range")
    assert viewer.command({"scene": "wave"}) == (
        "scene wave refused: the frames are the caller's (array), which feeds this loop; no scene or other source "
        "replaces them")
    assert viewer.index == 2 and gain.value == 2.5
    with pytest.raises(ValueError):
        viewer.command({"zoom": "everything"})


def test_controls_and_time_belong_to_the_viewers_thread(viewer):
    exposure = viewer.slider("exposure", 0, 1)
    errors = []

    def use():
        for call in (lambda: exposure.value, lambda: setattr(viewer, "paused", True), lambda: viewer.index):
            try:
                call()
            except InteropLabError as error:
                errors.append(str(error))

    worker = threading.Thread(target=use)
    worker.start()
    worker.join()
    assert len(errors) == 3 and all("was opened on thread" in error for error in errors), errors
    assert exposure.value == 0 and not viewer.paused  # the owner still can


def test_bad_controls_name_the_fix(viewer):
    viewer.slider("exposure", 0, 4)
    with pytest.raises(ValueError, match="a control named 'exposure' is in the panel already"):
        viewer.checkbox("exposure")
    with pytest.raises(ValueError, match="slider 'gain': low 2, high 1: pass finite numbers with low below high"):
        viewer.slider("gain", 2, 1)
    with pytest.raises(ValueError, match="slider 'gain': value 9 is outside 0..1"):
        viewer.slider("gain", 0, 1, value=9)
    with pytest.raises(ValueError, match="choice 'map': value 'jet' is none of its options"):
        viewer.choice("map", ["gray"], value="jet")
    with pytest.raises(ValueError, match="choice 'none': pass at least one option"):
        viewer.choice("none", [])
    with pytest.raises(TypeError, match="callback 3 is not callable"):
        viewer.button("go", callback=3)
    exposure = viewer._controls[0]
    with pytest.raises(ValueError, match="outside 0..4"):
        exposure.value = 5


# In a window: the input the user gives -------------------------------------------------------------------


def test_a_disk_stays_round_in_a_wide_window(window):
    y, x = numpy.mgrid[0:256, 0:256]
    disk = numpy.zeros((256, 256, 4), numpy.uint8)
    disk[..., 3] = 255
    disk[(x - 127.5) ** 2 + (y - 127.5) ** 2 <= 100 ** 2, 1] = 255
    window.show(disk)
    shown = window.read_frame()  # the frame the window shows under the panel: the picture's pure green alone
    green = (shown[..., 1] == 255) & (shown[..., 0] == 0) & (shown[..., 2] == 0)
    rows, columns = numpy.nonzero(green)
    width, height = columns.max() - columns.min() + 1, rows.max() - rows.min() + 1
    assert abs(width - height) <= 1 and abs(height - 200 * 720 / 256) <= 3, (width, height)
    assert abs((columns.max() + columns.min()) / 2 - 639.5) <= 1  # in the middle of the letterbox


def test_the_wheel_zooms_about_the_cursor(window):
    picture = distinct_picture(256, 256)
    window.show(picture)
    scale = 720 / 256  # 256x256 contained in 1280x720: from x 280
    point = (280 + 150.5 * scale, 100.5 * scale)  # the middle of image pixel (150, 100), in window coordinates
    window._inject("move", *point)
    window.poll()
    assert window.cursor == (150, 100)
    at = (int(point[1]), int(point[0]))
    numpy.testing.assert_array_equal(window.read_window()[at], picture[100, 150])
    window._inject("wheel", 0, 3)
    window.poll()
    assert window.view["free"] and window.view["scale"][0] == pytest.approx(scale * 1.25 ** 3)
    assert window.cursor == (150, 100)  # the same image pixel under the cursor
    numpy.testing.assert_array_equal(window.read_window()[at], picture[100, 150])
    window._inject("wheel", 0, -5)  # and back out past the fit
    window.poll()
    assert window.view["scale"][0] == pytest.approx(scale * 1.25 ** -2) and window.cursor == (150, 100)


def test_a_drag_pans_and_the_keys_show_1_to_1_and_fit_again(window):
    window.show(distinct_picture(256, 256))
    window._inject("move", 600, 300)
    window.poll()
    origin = window.view["origin"]
    window._inject("press")
    window.poll()
    window._inject("move", 650, 320)
    window.poll()
    window._inject("release")
    window.poll()
    assert window.view["origin"] == (origin[0] + 50, origin[1] + 20)
    window._inject("key", "1")
    window.poll()
    assert window.view["scale"] == (1.0, 1.0)
    window._inject("key", "f")
    window.poll()
    assert not window.view["free"] and window.view["origin"] == (280.0, 0.0)


def test_space_pauses_and_period_steps(window):
    window.show(distinct_picture(16, 16))
    assert window.poll(fps=1000)
    window._inject("key", "space")
    assert not window.poll(fps=1000) and window.paused  # the poll whose frame reads Space
    assert not window.poll(fps=1000)
    window._inject("key", "period")
    assert [window.poll(fps=1000) for _ in range(3)] == [True, False, False]  # one step, still paused
    assert window.paused
    window._inject("key", "space")
    assert window.poll(fps=1000) and not window.paused


def test_the_readout_says_the_float64_value_under_the_cursor(window):
    values = numpy.random.default_rng(5).random((256, 256))
    window.show(values)
    window._inject("move", 640, 360)
    window.poll()
    x, y = window.cursor
    assert window.readout == f"x {x}  y {y}  {values[y, x]:.10g}"
    shown = values[y, x]
    values[y, x] = 0.5  # written in place, not shown: the picture, and so the readout, are as they were
    window.poll()
    assert window.readout == f"x {x}  y {y}  {shown:.10g}"
    window.show(values)
    assert window.readout == f"x {x}  y {y}  0.5"
    window._inject("move", 100, 700)  # on the letterbox
    window.poll()
    assert window.cursor is None and window.readout == ""


def test_a_window_without_its_panel_still_zooms_at_the_wheel():
    needs_display()
    with open_viewer((640, 360), window=True, panel=False) as window:
        window.show(distinct_picture(64, 64))
        window._inject("move", 320, 180)
        window._inject("wheel", 0, 1)
        window.poll()
        assert window.view["free"] and window.view["scale"][0] > 360 / 64, window.view
        assert window.cursor is not None


def test_the_arrow_keys_pick_a_stacks_frame(window):
    stack = numpy.stack([numpy.full((16, 16), n * 50, numpy.uint8) for n in range(4)])
    window.show(stack)
    window._inject("key", "right")
    window.poll()  # reads the key, then shows the frame it picked
    assert window.index == 1 and window.read_frame()[360, 640, 0] == 50


def test_a_one_channel_picture_has_a_colorbar_and_the_picture_alone_has_none(window):
    table = interop_lab._colormaps.table("viridis")
    window.show(numpy.zeros((64, 64), numpy.float32), colormap="viridis")
    shown = window.read_window()[..., :3]

    def has_colorbar(frame):  # 256 pixels in a row, the colormap's colours in order
        for row in frame:
            starts = numpy.nonzero((row[:-255] == table[0, :3]).all(axis=1))[0]
            for start in starts:
                if (row[start:start + 256] == table[:, :3]).all():
                    return True
        return False

    assert has_colorbar(shown)
    assert not has_colorbar(window.read_frame()[..., :3])  # read_frame: the picture alone
    window.show(numpy.zeros((64, 64, 3), numpy.float32))
    assert not has_colorbar(window.read_window()[..., :3])


def test_clicks_on_your_controls_in_the_panel_reach_your_loop(window):
    pressed = []
    reset = window.button("reset", callback=lambda: pressed.append(True))
    smooth = window.checkbox("smooth")
    window.show(distinct_picture(16, 16))
    window.poll()  # the panel is drawn: the controls have their places
    for control in (reset, smooth):
        x0, y0, x1, y1 = _control_rect(window, control)
        window._inject("move", (x0 + x1) / 2, (y0 + y1) / 2)
        window.poll()
        window._inject("press")
        window.poll()
        window._inject("release")
        window.poll()
    assert reset.value == 1 and pressed == [True] and smooth.value is True


def _control_rect(viewer, control):
    import ctypes
    rect = (ctypes.c_float * 4)()
    interop_lab._native.check(interop_lab.viewer.lib.ilab_viewer_control_rect(viewer._handle, control._id, rect))
    assert rect[2] > rect[0], "the panel drew no such control"
    return tuple(rect)
