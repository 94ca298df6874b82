#!/usr/bin/python3
"""tests/web/test_notebook.py: interop_lab.show() in a Jupyter notebook, executed headless by Debian's nbclient on
an IPython kernel (python3-ipykernel), and the desk it displays opened in a real headless Chromium (Selenium).

The notebook's cells, run one at a time in one kernel (the viewer lives in the kernel, so the page is opened while
it runs), each checked by its outputs:
- show() of a NumPy array (the cpu path) returns at once and displays text/html: an iframe of the desk at
  http://127.0.0.1:PORT/?token=..., as high as the frame's aspect asks, and a link to the same URL in a tab;
- show() in a later cell of an array of another size displays the same viewer (the same URL) there, and the
  first cell's iframe becomes a note; notebook.viewer().url is that URL;
- in Chromium, the link (a tab of its own), and that cell's HTML in a page served from 127.0.0.1 as a notebook
  server there serves it, and in a page of another site (localhost, the desk being at 127.0.0.1, where the
  browser withholds the desk's SameSite=Strict cookie and the page's links carry the token instead): the desk
  connects, its canvas takes the frame's size and its pixels are the array shown (within the desk's JPEG
  tolerance);
- the remote case: a port forward (a TCP relay here, as `ssh -L` would be) and INTEROP_LAB_NOTEBOOK_URL set to
  its http://localhost:PORT: the next cell's iframe points there and, in a page at http://localhost, draws the
  frame through the relay;
- interop_lab.notebook.close(): the page says the desk is gone and nothing listens on the port.

Not run: JupyterLab's, Notebook's or VS Code's front ends (the kernel's messages are what nbclient receives) and
a real ssh.

Run by CTest (tests/CMakeLists.txt): test_notebook.py --python-path BUILD/python. Exits 77 (CTest's skip) only
where Jupyter (python3-nbclient, python3-ipykernel) or Chromium and its driver are missing, saying which;
scripts/setup.sh installs them all.
"""
import argparse
import http.server
import os
import re
import shutil
import socket
import sys
import tempfile
import threading

import numpy

sys.dont_write_bytecode = True  # no __pycache__ in the source tree for its helper
from desk_page import SKIP, chromium_and_selenium, frames_drawn, open_chromium, pump, wait_for  # noqa: E402
from html_elements import Elements  # noqa: E402  (python/tests, on the path desk_page sets)

URL = re.compile(r"^http://127\.0\.0\.1:(\d+)/\?token=[0-9a-f]{32}$")
# The desk's JPEG tolerance (tests/unit/test_serve.cpp) for a smooth picture.
LARGEST_DIFFERENCE, MEAN_DIFFERENCE = 16, 2.0

# The pictures, made alike in the kernel and here: gradients and a wave, which JPEG keeps within a few levels.
PICTURE = """
import numpy
def picture(height, width, phase=0.0):
    y, x = numpy.mgrid[0:height, 0:width].astype(numpy.float64)
    rgb = numpy.empty((height, width, 3), dtype=numpy.uint8)
    rgb[..., 0] = 255 * x / (width - 1)
    rgb[..., 1] = 255 * y / (height - 1)
    rgb[..., 2] = 128 + 100 * numpy.sin(x / 23.0 + phase) * numpy.cos(y / 31.0)
    return rgb
"""
_made = {}
exec(PICTURE, _made)
picture = _made["picture"]


def jupyter():
    """(nbformat, NotebookClient), or SKIP where Jupyter's pieces are missing."""
    try:
        import nbformat
        from jupyter_client.kernelspec import NoSuchKernel, get_kernel_spec
        from nbclient import NotebookClient
    except ImportError as error:
        print(f"SKIP: Jupyter is missing ({error}); scripts/setup.sh installs python3-nbclient and python3-ipykernel")
        return SKIP
    try:
        get_kernel_spec("python3")
    except NoSuchKernel:
        print("SKIP: no python3 Jupyter kernel; scripts/setup.sh installs python3-ipykernel")
        return SKIP
    return nbformat, NotebookClient


class Relay:
    """A TCP relay from 127.0.0.1:<its port> to 127.0.0.1:`target`, as `ssh -L PORT:127.0.0.1:TARGET` is on
    the browser's machine; counts the connections it carried."""

    def __init__(self, target):
        self.target = target
        self.connections = 0
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            self.connections += 1
            try:
                server = socket.create_connection(("127.0.0.1", self.target))
            except OSError:  # the desk is gone: refused, as ssh -L refuses then
                client.close()
                continue
            for source, sink in ((client, server), (server, client)):
                threading.Thread(target=pump, args=(source, sink), daemon=True).start()

    def close(self):
        self.listener.close()


def run(client, nb, source):
    """Appends a cell of `source` and runs it in the kernel; returns its outputs. An error in it fails the test."""
    import nbformat

    cell = nbformat.v4.new_code_cell(source)
    nb.cells.append(cell)
    client.execute_cell(cell, len(nb.cells) - 1)
    return cell.outputs


def displayed_html(outputs, what):
    """The one text/html display of `outputs` (nothing printed on stderr, no result value)."""
    displays = [output for output in outputs if output.output_type == "display_data"]
    assert len(displays) == 1, f"{what}: {len(displays)} displays in {outputs}"
    assert not [output for output in outputs if output.output_type == "execute_result"], \
        f"{what}: show() returned a value: {outputs}"
    # The kernel forwards what the desk says on stderr when it starts serving; anything else is a complaint.
    said = [line for output in outputs if output.output_type == "stream" and output.name == "stderr"
            for line in output.text.splitlines() if not line.startswith("interop-lab: serving the desk at ")]
    assert not said, f"{what}: said on stderr: {said}"
    return displays[0].data["text/html"]


def check_iframe(text, what, size):
    """The iframe's URL; checks the link names the same one and the height follows the frame's aspect."""
    elements = Elements(text)
    assert len(elements.iframes) == 1, f"{what}: {text}"
    iframe = elements.iframes[0]
    assert [link["href"] for link in elements.links] == [iframe["src"]], f"{what}: the link is not the iframe's: {text}"
    assert elements.links[0]["target"] == "_blank", text
    width, height = size
    assert int(iframe["height"]) == min(max(round(544 * height / width) + 64, 240), 960), f"{what}: {text}"
    return iframe["src"]


def canvas_pixels(driver):
    width, height, data = driver.execute_script(
        "const c = document.getElementById('frame');"
        "return [c.width, c.height, Array.from(c.getContext('2d').getImageData(0, 0, c.width, c.height).data)];")
    return numpy.array(data, dtype=numpy.uint8).reshape(height, width, 4)


class NotebookPages:
    """The cells' HTML served as pages on 127.0.0.1, as the notebook server's page holds an output: the page at
    http://HOST:PORT/N is the HTML put as N."""

    def __init__(self):
        pages = self.pages = {}

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                body = pages.get(self.path.lstrip("/"), "").encode()
                self.send_response(200 if body else 404)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *_):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def put(self, host, cell_html):
        name = str(len(self.pages))
        self.pages[name] = f"<!DOCTYPE html><html><body>{cell_html}</body></html>"
        return f"http://{host}:{self.port}/{name}"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def check_desk(driver, By, shown):
    """The desk's page (the document the driver is in) connects and draws `shown` at its size."""
    canvas = wait_for("the desk's canvas", lambda: driver.find_elements(By.ID, "frame"))[0]
    wait_for("the desk's first frame", lambda: frames_drawn(canvas) >= 1)
    wait_for("the page connected", lambda: driver.find_element(By.ID, "connection").text == "connected")
    height, width = shown.shape[:2]
    assert (canvas.get_attribute("width"), canvas.get_attribute("height")) == (str(width), str(height))
    received = canvas_pixels(driver)
    difference = numpy.abs(received[..., :3].astype(int) - shown.astype(int))
    assert difference.max() <= LARGEST_DIFFERENCE, f"largest difference {difference.max()}"
    assert difference.mean() < MEAN_DIFFERENCE, f"mean difference {difference.mean():.3f}"


def check_iframe_page(driver, By, page_url, shown):
    """Opens the page of a cell's HTML and checks the desk in its iframe."""
    driver.get(page_url)
    driver.switch_to.frame(driver.find_element(By.TAG_NAME, "iframe"))
    check_desk(driver, By, shown)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--python-path", required=True, help="the build's python folder (interop_lab)")
    args = parser.parse_args()

    found = jupyter()
    if isinstance(found, int):
        return found
    nbformat, NotebookClient = found
    webdriver, Service, By, chromium, driver_binary = chromium_and_selenium()

    # The kernel inherits this environment: the build's interop_lab, no display (the viewer renders headless).
    os.environ["PYTHONPATH"] = args.python_path
    os.environ.pop("DISPLAY", None)
    os.environ.pop("WAYLAND_DISPLAY", None)
    os.environ.pop("INTEROP_LAB_NOTEBOOK_URL", None)
    os.environ["PYDEVD_DISABLE_FILE_VALIDATION"] = "1"  # the kernel's debugger, quiet about frozen modules
    folder = tempfile.mkdtemp(prefix="ilab-notebook-")
    nb = nbformat.v4.new_notebook()
    client = NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": folder}})
    driver, relay, pages = None, None, NotebookPages()
    try:
        with client.setup_kernel():
            run(client, nb, PICTURE + "import warnings, interop_lab\n"
                "warnings.simplefilter('ignore', interop_lab.PathNotice)\n")
            first = displayed_html(run(client, nb, "interop_lab.show(picture(120, 200), mode='cpu')"), "first show")
            url = check_iframe(first, "first show", (200, 120))
            port = int(URL.match(url).group(1)) if URL.match(url) else None
            assert port, f"first show: the iframe's URL {url} is not the desk's with its token"

            later = run(client, nb, "interop_lab.show(picture(90, 160, phase=2.0), mode='cpu')")
            second = displayed_html(later, "a later cell's show")
            assert check_iframe(second, "a later cell's show", (160, 90)) == url, "a later show opened another viewer"
            retired = [output for output in nb.cells[1].outputs if output.output_type == "display_data"]
            assert len(retired) == 1 and "shown in a later cell" in retired[0].data["text/plain"], retired
            assert "<iframe" not in retired[0].data["text/html"], retired
            printed = run(client, nb, "print(interop_lab.notebook.viewer().url)")
            assert [output.text.strip() for output in printed] == [url], printed

            driver = open_chromium(webdriver, Service, chromium, driver_binary, os.path.join(folder, "profile"),
                                   (1200, 900))
            # The link, a tab of its own, and the iframe in a notebook's page on the desk's site (a notebook server
            # at http://127.0.0.1:8888).
            driver.get(url)
            check_desk(driver, By, picture(90, 160, phase=2.0))
            check_iframe_page(driver, By, pages.put("127.0.0.1", second), picture(90, 160, phase=2.0))
            # And in a page of another site (a notebook at http://localhost:8888, the desk at 127.0.0.1): the
            # desk's SameSite=Strict cookie is withheld there, and the page's links carry the token instead.
            check_iframe_page(driver, By, pages.put("localhost", second), picture(90, 160, phase=2.0))
            print(f"ok: the notebook's link and iframe (its site's page and another site's) drew the frame from "
                  f"{url.split('?')[0]}")

            # The browser on another machine: a relay stands for `ssh -L`, the notebook points the iframe at it.
            relay = Relay(port)
            remote = run(client, nb, "import os\n"
                         f"os.environ['INTEROP_LAB_NOTEBOOK_URL'] = 'http://localhost:{relay.port}'\n"
                         "interop_lab.show(picture(120, 200), mode='cpu')")
            forwarded = check_iframe(displayed_html(remote, "a show with INTEROP_LAB_NOTEBOOK_URL"),
                                     "a show with INTEROP_LAB_NOTEBOOK_URL", (200, 120))
            assert forwarded == url.replace(f"127.0.0.1:{port}", f"localhost:{relay.port}"), forwarded
            # The notebook's page as the browser there opens it, through its own forward: http://localhost:8888.
            check_iframe_page(driver, By, pages.put("localhost", displayed_html(remote, "remote")), picture(120, 200))
            assert relay.connections >= 2, f"the page reached the desk {relay.connections} times through the relay"
            print(f"ok: through a relay as ssh -L would be, at {forwarded.split('?')[0]}")

            assert run(client, nb, "interop_lab.notebook.close()") == []
            wait_for("the page to say the desk is gone",
                     lambda: driver.find_element(By.ID, "connection").text.startswith("disconnected"))
            with socket.socket() as probe:
                assert probe.connect_ex(("127.0.0.1", port)) != 0, "the desk still listens after close()"
            print("ok: notebook.close() stopped the desk")
    finally:
        if driver is not None:
            driver.quit()
        if relay is not None:
            relay.close()
        pages.close()
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
