"""Viewer.points on the cpu path (NumPy arrays; headless EGL on Mesa, a window under Xvfb where DISPLAY is set): a
known point set drawn as its CPU reference says, nearest first; points_frame's targets; the orbit camera from
Python, the window's input and the served page; the served frame and the screenshot the same image; and the
errors that name the fix. Zero copy on the interop path and 10 million points are test_viewer_gpu.py's."""

import os
import urllib.request
import warnings

import numpy
import pytest

import interop_lab
from interop_lab import InteropLabError
from pictures import decode_png

SIZE = 3  # the points' edge in these tests: odd, so a point covers the pixels about the one it falls in


def open_viewer(size=(200, 150), **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", interop_lab.PathNotice)
        return interop_lab.Viewer(size=size, mode="cpu", **options)


@pytest.fixture
def viewer():
    with open_viewer(window=False) as opened:
        yield opened


def window_of(xyz, matrix, width, height):
    """Where GL puts each point: window x and y (GL's, y up) and depth, projected with the viewer's matrix."""
    clip = numpy.c_[xyz.astype(numpy.float64), numpy.ones(len(xyz))] @ matrix.astype(numpy.float64).T
    ndc = clip[:, :3] / clip[:, 3:4]
    return (ndc[:, 0] + 1) / 2 * width, (ndc[:, 1] + 1) / 2 * height, ndc[:, 2]


def reference(xyz, colours, matrix, width, height):
    """The CPU reference of the viewer's points: a point of edge SIZE at window position (x, y) covers the pixels
    whose centres lie within SIZE / 2 of it (GL's point rule; a centre on the low edge in, on the high edge out:
    kernels/points.hpp), the nearest point wins (the depth test, GL_LESS:
    of equal depths the first drawn), on black; rows top first as read_frame gives them."""
    frame = numpy.zeros((height, width, 4), numpy.uint8)
    frame[..., 3] = 255
    depth = numpy.full((height, width), numpy.inf)
    x, y, z = window_of(xyz, matrix, width, height)
    for i in range(len(xyz)):
        for column in range(int(numpy.floor(x[i] - SIZE / 2)), int(numpy.ceil(x[i] + SIZE / 2)) + 1):
            for row in range(int(numpy.floor(y[i] - SIZE / 2)), int(numpy.ceil(y[i] + SIZE / 2)) + 1):
                inside = (x[i] - SIZE / 2 <= column + 0.5 < x[i] + SIZE / 2
                          and y[i] - SIZE / 2 <= row + 0.5 < y[i] + SIZE / 2)
                if inside and 0 <= column < width and 0 <= row < height and z[i] < depth[height - 1 - row, column]:
                    depth[height - 1 - row, column] = z[i]
                    frame[height - 1 - row, column] = colours[i]
    return frame


def clear_of_edges(xyz, matrix, width, height):
    """The points whose window position is at least 0.15 pixel from a pixel edge and a point away from the frame's
    border, each apart from the others: where float32 (GL) and float64 (the reference) cannot disagree."""
    x, y, _ = window_of(xyz, matrix, width, height)
    kept, taken = [], set()
    for i in range(len(xyz)):
        fraction_x, fraction_y = x[i] % 1, y[i] % 1
        if not (0.15 < fraction_x < 0.85 and 0.15 < fraction_y < 0.85):
            continue
        cell = (int(x[i]), int(y[i]))
        if not (SIZE <= cell[0] < width - SIZE and SIZE <= cell[1] < height - SIZE):
            continue
        near = {(cell[0] + dx, cell[1] + dy) for dx in range(-3, 4) for dy in range(-3, 4)}
        if near & taken:
            continue
        taken.add(cell)
        kept.append(i)
    return numpy.array(kept)


def test_a_known_point_set_is_drawn_as_its_cpu_reference_nearest_first(viewer):
    rng = numpy.random.default_rng(7)
    xyz = rng.uniform(-1.0, 1.0, size=(400, 3)).astype(numpy.float32)
    viewer.points(xyz, colors=rng.integers(0, 256, size=(400, 3), dtype=numpy.uint8), size=SIZE)
    camera = viewer.camera  # framed the set's bounds; later sets keep it
    kept = clear_of_edges(xyz, camera["matrix"], 200, 150)
    assert len(kept) > 60, len(kept)
    chosen = xyz[kept]
    # A nearer point on the same line of sight as each of the first ten: drawn after half of them and before the
    # other half, it hides them either way.
    eye = numpy.array(camera["target"]) + camera["distance"] * numpy.array(
        [numpy.sin(camera["yaw"]) * numpy.cos(camera["pitch"]), numpy.sin(camera["pitch"]),
         numpy.cos(camera["yaw"]) * numpy.cos(camera["pitch"])])
    nearer = (eye + (chosen[:10] - eye) * 0.9).astype(numpy.float32)
    points = numpy.concatenate([nearer[:5], chosen, nearer[5:]])
    colours = rng.integers(0, 256, size=(len(points), 4), dtype=numpy.uint8)
    colours[:, 3] = 255
    viewer.points(points, colors=colours, size=SIZE)
    assert viewer.camera["distance"] == camera["distance"]
    drawn = viewer.read_frame()
    expected = reference(points, colours, camera["matrix"], 200, 150)
    assert (expected[..., :3].sum(axis=2) > 0).sum() > 9 * 50
    numpy.testing.assert_array_equal(drawn, expected)
    x, y, _ = window_of(chosen[:10], camera["matrix"], 200, 150)
    for i in range(10):  # the nearer points' colours, not the ones behind
        row, column = 150 - 1 - int(y[i]), int(x[i])
        assert tuple(drawn[row, column]) == tuple(colours[i if i < 5 else len(points) - 10 + i]), i


def test_values_map_through_the_colormap_and_z_is_the_default(viewer):
    xyz = numpy.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], numpy.float32)
    low, high = viewer.points(xyz, values=numpy.array([0.0, 1.0, 2.0, 4.0]), colormap="turbo", size=SIZE)
    assert (low, high) == (0.0, 4.0) and viewer.range == (0.0, 4.0)
    table = interop_lab._colormaps.table("turbo")
    x, y, _ = window_of(xyz, viewer.camera["matrix"], 200, 150)
    drawn = viewer.read_frame()
    for i, value in enumerate([0.0, 1.0, 2.0, 4.0]):
        byte = int(numpy.floor(numpy.float32(value / 4.0) * 255 + 0.5))
        assert tuple(drawn[150 - 1 - int(y[i]), int(x[i])]) == tuple(table[byte]), i
    assert viewer.points(xyz, size=SIZE) == (0.0, 1.0)  # z through viridis, its min..max
    viridis = interop_lab._colormaps.table("viridis")
    drawn = viewer.read_frame()
    assert tuple(drawn[150 - 1 - int(y[3]), int(x[3])]) == tuple(viridis[255])
    assert tuple(drawn[150 - 1 - int(y[0]), int(x[0])]) == tuple(viridis[0])


def test_points_frame_hands_out_the_points_memory_and_keeps_what_was_not_written(viewer):
    with viewer.points_frame(3, size=SIZE) as (xyz, rgba):
        assert xyz.shape == (3, 3) and xyz.dtype == numpy.float32
        assert rgba.shape == (3, 4) and rgba.dtype == numpy.uint8
        xyz[:] = [[-1, 0, 0], [0, 0, 0], [1, 0, 0]]
        rgba[:] = [[255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255]]
    first = viewer.read_frame()
    assert (first[..., :3].sum(axis=2) > 0).sum() == 3 * 9
    with viewer.points_frame(3, size=SIZE) as (xyz, rgba):
        rgba[1] = [255, 255, 255, 255]  # one colour changed; the positions and the other colours stay
    second = viewer.read_frame()
    changed = numpy.argwhere((first != second).any(axis=2))
    assert len(changed) == 9 and (second[tuple(changed[0])] == 255).all()
    with pytest.raises(RuntimeError, match="in the block"):
        with viewer.points_frame(3, size=SIZE) as (xyz, rgba):
            xyz[:] = 100.0
            raise RuntimeError("an error in the block")
    # Half a set is never drawn: no points until the next set (the block's writes went to the buffers).
    assert (viewer.read_frame()[..., :3] == 0).all()
    with viewer.points_frame(3, size=SIZE) as (xyz, rgba):
        xyz[:] = [[-1, 0, 0], [0, 0, 0], [1, 0, 0]]
    numpy.testing.assert_array_equal(viewer.read_frame(), second)


def test_the_orbit_camera_turns_zooms_and_frames_again(viewer):
    rng = numpy.random.default_rng(3)
    viewer.points(rng.normal(size=(500, 3)))
    framed = viewer.camera
    before = viewer.read_frame()
    viewer.pan(40, 0)  # a drag: the yaw turns by 0.01 radian a pixel
    assert viewer.camera["yaw"] == pytest.approx(framed["yaw"] - 0.4)
    assert not numpy.array_equal(viewer.read_frame(), before)
    viewer.pan(0, 1000)
    assert viewer.camera["pitch"] == pytest.approx(1.55)  # short of straight down
    viewer.zoom(2.0)
    assert viewer.camera["distance"] == pytest.approx(framed["distance"] / 2)
    viewer.reset_camera()
    assert viewer.camera["distance"] == pytest.approx(framed["distance"])
    assert viewer.camera["yaw"] == pytest.approx(framed["yaw"])
    numpy.testing.assert_array_equal(viewer.read_frame(), before)
    viewer.camera = dict(viewer.camera, yaw=0.0, target=(0.0, 0.0, 0.0))
    assert viewer.camera["yaw"] == 0.0 and viewer.camera["target"] == (0.0, 0.0, 0.0)
    for bad, why in [({"pitch": 2.0}, "pitch within"), ({"distance": 0.0}, "above 0"),
                     ({"yaw": float("nan")}, "finite"), ({"roll": 1.0}, "unknown keys")]:
        with pytest.raises((InteropLabError, ValueError), match=why):
            viewer.camera = dict(viewer.camera, **bad)


def test_a_picture_shown_after_points_takes_the_frame_back(viewer):
    viewer.points(numpy.zeros((4, 3)))
    picture = numpy.full((150, 200, 4), 77, numpy.uint8)
    viewer.show(picture)
    numpy.testing.assert_array_equal(viewer.read_frame(), picture)
    assert "points" not in viewer.readout


@pytest.mark.parametrize("arguments, error, fix", [
    ({"xyz": numpy.zeros((5, 2))}, ValueError, r"\(N, 3\) positions.*add a z column"),
    ({"xyz": numpy.zeros((5, 3, 1))}, ValueError, r"\(N, 3\) positions"),
    ({"xyz": numpy.zeros((0, 3))}, ValueError, "at least one point"),
    ({"xyz": numpy.zeros((5, 3)), "colors": numpy.zeros((5, 7))}, ValueError, "7 channels"),
    ({"xyz": numpy.zeros((5, 3)), "colors": numpy.zeros((4, 3))}, ValueError, "4 colours for 5 points"),
    ({"xyz": numpy.zeros((5, 3)), "values": numpy.zeros((5, 3))}, ValueError, "values= has 3 channels"),
    ({"xyz": numpy.zeros((5, 3)), "values": numpy.zeros(5), "colors": numpy.zeros((5, 3))}, ValueError, "not both"),
    ({"xyz": numpy.zeros((5, 3)), "colors": numpy.zeros((5, 3)), "colormap": "turbo"}, ValueError,
     "colormap is for values"),
    ({"xyz": numpy.zeros((5, 3)), "size": 0}, ValueError, "from 1 to 64"),
    ({"xyz": numpy.zeros((5, 3)), "size": 65}, ValueError, "from 1 to 64"),
    ({"xyz": numpy.zeros((5, 3)), "size": "big"}, TypeError, "1 to 64"),
    ({"xyz": numpy.zeros((5, 3)), "values": numpy.zeros(5), "range": (1, 1)}, ValueError, "above low"),
    ({"xyz": numpy.zeros((5, 3), numpy.complex64)}, TypeError, "real part"),
    ({"xyz": "points"}, ValueError, r"\(N, 3\) positions"),
])
def test_bad_points_name_the_fix_and_change_nothing(viewer, arguments, error, fix):
    viewer.points(numpy.eye(3), size=SIZE)
    before = viewer.read_frame()
    with pytest.raises(error, match=fix):
        viewer.points(**arguments)
    numpy.testing.assert_array_equal(viewer.read_frame(), before)


def test_points_frame_refuses_a_bad_count(viewer):
    for n, error, fix in [(0, InteropLabError, "from 1 to"), (2.5, TypeError, "an int"), (-3, InteropLabError,
                                                                                          "from 1 to")]:
        with pytest.raises(error, match=fix):
            with viewer.points_frame(n):
                pass
    with viewer.points_frame(2) as (xyz, rgba):  # and the viewer goes on
        xyz[:] = 0


def test_the_served_frame_is_the_screenshot_and_the_page_turns_the_camera():
    pytest.importorskip("PIL.Image", reason="needs Pillow to decode the desk's JPEGs: install python3-pil")
    from desk_client import DeskClient, wait_for

    with open_viewer(size=(160, 96), serve=0) as served:
        served.points(numpy.random.default_rng(5).normal(size=(300, 3)))
        port, token = served.url.split(":")[-1].split("/")[0], served.url.split("token=")[1]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/screenshot.png?token={token}", timeout=30) as answer:
            png = answer.read()
        path = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"points-served-{os.getpid()}.png")
        with open(path, "wb") as file:
            file.write(png)
        try:
            numpy.testing.assert_array_equal(decode_png(path), served.read_frame())
        finally:
            os.unlink(path)
        yaw, distance = served.camera["yaw"], served.camera["distance"]
        with DeskClient(served.url) as page:
            state, _ = page.read_state_and_frame()
            assert state["source_status"].startswith("300 points")  # the page's source row
            page.send_json({"pan": [30, 0]})
            wait_for("the page's drag", lambda: served._take_page_commands() or served.camera["yaw"] != yaw, timeout=10)
            assert served.camera["yaw"] == pytest.approx(yaw - 0.3)
            page.send_json({"zoom": [80, 48, 2.0]})
            wait_for("the page's wheel", lambda: served._take_page_commands() or served.camera["distance"] != distance,
                     timeout=10)
            assert served.camera["distance"] == pytest.approx(distance / 2)
            page.send_json({"fit": True})
            wait_for("the page's fit", lambda: served._take_page_commands() or served.camera["yaw"] == yaw, timeout=10)
            assert served.camera["distance"] == pytest.approx(distance)


def test_a_drag_and_the_wheel_in_a_window_turn_and_zoom_the_camera_and_f_frames_again():
    if not os.environ.get("DISPLAY"):
        pytest.skip("needs an X display (run under xvfb-run)")
    with open_viewer(size=(1280, 720), window=True) as window:
        window.points(numpy.random.default_rng(2).normal(size=(300, 3)))
        framed = window.camera
        window._inject("move", 900, 400)  # right of the panel
        window.poll()
        window._inject("press")
        window.poll()
        window._inject("move", 950, 420)
        window.poll()
        window._inject("release")
        window.poll()
        assert window.camera["yaw"] == pytest.approx(framed["yaw"] - 0.5)
        assert window.camera["pitch"] == pytest.approx(framed["pitch"] + 0.2)
        window._inject("wheel", 0, 2)
        window.poll()
        assert window.camera["distance"] == pytest.approx(framed["distance"] / 1.25 ** 2)
        window._inject("key", "f")
        window.poll()
        assert window.camera["distance"] == pytest.approx(framed["distance"])
        assert "300 points" in window.readout
