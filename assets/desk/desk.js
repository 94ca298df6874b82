// assets/desk/desk.js: the desk's page logic. It opens the WebSocket of the server that served it
// (app/serve/server.hpp), draws each frame message (the JPEG strips of app/serve/protocol.hpp: "ILF2",
// index, width, height, n, n x (y, rows, scale, bytes), then the JPEGs; a strip of scale 2 or 4 drawn that
// many times as large) onto the canvas, which keeps the rows no strip covers, and acks it ({"ack": index}):
// so the desk sends only the stripes that changed, paced by the acks, at the quality (and scale) this page's
// link keeps up with. It shows the state messages in the panel (the link's quality, scale, kbit/s and
// frames/s among them), sends the panel's choices as JSON commands, and reconnects when
// the socket drops (unless the app that answers now refuses this page's token: a restarted app has a new
// one); a new connection starts with a whole frame.
"use strict";

const token = new URLSearchParams(location.search).get("token") || "";
const $ = (id) => document.getElementById(id);
const plotHistory = [];  // frame time, ms, newest last
const kPlotLength = 240;
let socket = null;
let state = null;
let framesDrawn = 0;
let drawing = false;  // a frame message being decoded; the ones after it wait in `frameQueue`
const frameQueue = [];  // every message is drawn, in order: each holds only the stripes that changed
let sizeTyped = false;  // the size fields show the frame's size, except while they hold one typed, not applied
let zoom = 0;  // the frame's scale: 0 fits it to the pane's width, else device pixels per frame pixel
let tokenRefused = false;  // the app answering now refused this page's token: no more reconnecting
let controlTable = null;  // GET controls.json: every control's key, label, tooltip, and why the page has it not
let settings = null;  // the state's settings as last sent (a state carries them when they changed)
const kTokenRefused = "this page's token was refused: open the new URL interop-lab printed";

function send(command) {
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(command));
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  socket = new WebSocket(`${scheme}//${location.host}/?token=${encodeURIComponent(token)}`);
  socket.binaryType = "arraybuffer";
  socket.onopen = () => setConnection("connected", false);
  frameQueue.length = 0;  // the old connection's; the new one starts with a whole frame
  socket.onclose = () => {
    if (tokenRefused) return;
    setConnection("disconnected; reconnecting", true);
    // A socket refused looks the same as a dropped one; an HTTP request with the token tells them apart: a
    // restarted app (a new token) answers 403, a running one the file, and nothing answers while it is down.
    refusesToken().then((refused) => {
      if (!refused) {
        setTimeout(connect, 1000);
        return;
      }
      tokenRefused = true;
      setConnection(kTokenRefused, true);
      $("connection").dataset.refused = "true";
    });
  };
  socket.onmessage = (event) => {
    if (typeof event.data === "string") receiveText(JSON.parse(event.data));
    else receiveFrame(event.data);
  };
}

// Whether the server at this page's address answers this page's token with 403 (false when it answers
// otherwise or not at all).
async function refusesToken() {
  try {
    const reply = await fetch(`desk.css?token=${encodeURIComponent(token)}`, { cache: "no-store" });
    return reply.status === 403;
  } catch (error) {
    return false;  // nothing listening (yet): the app is down or starting
  }
}

function setConnection(text, down) {
  const status = $("connection");
  status.textContent = text;
  status.classList.toggle("down", down);
}

function receiveText(message) {
  if (message.type === "error") {
    $("notice").textContent = message.error;
  } else if (message.type === "state") {
    state = message;
    showState(message);
  }
}

function readU32(view, offset) {
  return view.getUint32(offset, true);
}

function receiveFrame(buffer) {
  frameQueue.push(buffer);
  if (!drawing) drawNext();
}

// Decodes every strip of the next frame message and draws them at their rows over what the canvas holds,
// then acks it. None is skipped (a message holds only what changed); the desk sends the next ones only as
// acks come back, so a slow page gets fewer frames, not a backlog.
async function drawNext() {
  const buffer = frameQueue.shift();
  if (!buffer) return;
  drawing = true;
  const sentOn = socket;
  try {
    const view = new DataView(buffer);
    const magic = String.fromCharCode(...new Uint8Array(buffer, 0, 4));
    if (magic !== "ILF2") throw new Error(`not a frame message this page reads (${magic}, not ILF2)`);
    const index = readU32(view, 4), width = readU32(view, 8), height = readU32(view, 12);
    const count = readU32(view, 16);
    let offset = 20 + 16 * count;
    const strips = [];
    for (let i = 0; i < count; ++i) {
      const entry = 20 + 16 * i;
      const y = readU32(view, entry), rows = readU32(view, entry + 4), scale = readU32(view, entry + 8);
      const bytes = readU32(view, entry + 12);
      const blob = new Blob([new Uint8Array(buffer, offset, bytes)], { type: "image/jpeg" });
      strips.push({ y, rows, scale, blob });
      offset += bytes;
    }
    const bitmaps = await Promise.all(strips.map((strip) => createImageBitmap(strip.blob)));
    const canvas = $("frame");
    if (canvas.width !== width || canvas.height !== height) {
      canvas.width = width;
      canvas.height = height;
      showZoom();
    }
    const context = canvas.getContext("2d");
    bitmaps.forEach((bitmap, i) => {
      // A downscaled strip at its full size: its last row and column may pass the frame's edge (clipped).
      const scale = strips[i].scale;
      context.drawImage(bitmap, 0, strips[i].y, bitmap.width * scale, bitmap.height * scale);
      bitmap.close();
    });
    ++framesDrawn;
    $("screenshot").disabled = false;
    $("screenshot").title = "";
    canvas.dataset.frame = String(index);
    canvas.dataset.framesDrawn = String(framesDrawn);
    canvas.dataset.strips = JSON.stringify(strips.map((strip) => [strip.y, strip.rows, strip.scale]));
    if (socket === sentOn) send({ ack: index });
  } catch (error) {
    setConnection(`bad frame: ${error.message}`, true);
    send({ refresh: true });  // what the canvas holds is no longer known: a whole frame
  }
  drawing = false;
  if (frameQueue.length) drawNext();
}

function radio(group, name, checked, available, reason, onPick) {
  const label = document.createElement("label");
  const input = document.createElement("input");
  input.type = "radio";
  input.name = group;
  input.value = name;
  input.id = `${group}-${name}`;
  input.checked = checked;
  input.disabled = !available;
  input.addEventListener("change", () => onPick(name));
  label.append(input, ` ${name}`);  // one unbreakable label (white-space: nowrap): the radio stays with its name
  if (!available) {
    label.classList.add("unavailable");
    label.title = reason;
  }
  return label;
}

// Rebuilds a radio group only when its choices change, so a click is not lost to a redraw.
function showChoices(containerId, group, choices, current, onPick) {
  const container = $(containerId);
  const key = JSON.stringify(choices);
  if (container.dataset.key !== key) {
    container.dataset.key = key;
    // A space between the labels: where the line may wrap.
    container.replaceChildren(
      ...choices.flatMap((c) => [radio(group, c.name, false, c.available, c.reason, onPick), " "]));
  }
  for (const input of container.querySelectorAll("input")) input.checked = input.value === current;
  container.dataset.current = current;
}

// Fills a <select> with `choices` ({value, label}) when they change, shows `current`, and greys it with `why`
// as its tooltip where the app cannot take a choice ("" when it can).
function showSelect(id, choices, current, why, onPick) {
  const select = $(id);
  const key = JSON.stringify(choices);
  if (select.dataset.key !== key) {
    select.dataset.key = key;
    select.replaceChildren(...choices.map((choice) => {
      const option = document.createElement("option");
      option.value = choice.value;
      option.textContent = choice.label;
      return option;
    }));
    select.onchange = () => onPick(select.value);
  }
  select.value = current;
  select.disabled = why !== "";
  select.title = why;
  select.dataset.current = current;
}

function cell(text) {
  const td = document.createElement("td");
  td.textContent = text;
  return td;
}

function ms(value) {
  return value.toFixed(3);
}

// Only the controls that apply to what makes the frames (state.controls: the app offers every one, a Python
// viewer only the screenshot) are shown; a viewer's path (how its caller's pixels reach GL) is.
function showControls(s) {
  const offered = new Set(s.controls || ["scene", "mode", "filter", "device", "flags", "doctor", "size", "fps",
                                         "screenshot"]);
  $("scenes").closest("fieldset").hidden = !offered.has("scene");
  $("modes").closest("fieldset").hidden = !offered.has("mode");
  $("filters").closest("fieldset").hidden = !offered.has("filter");
  $("device").closest("fieldset").hidden = !offered.has("device");
  $("map-flags").closest("fieldset").hidden = !offered.has("flags");
  $("doctor-section").hidden = !offered.has("doctor");
  for (const id of ["width", "height", "apply-size"]) $(id).disabled = !offered.has("size");
  $("screenshot").hidden = !offered.has("screenshot");
  $("blur-radius").closest("label").hidden = !offered.has("blur_radius");
  // The table's groups: each control offered, each group where one of them is.
  for (const group of document.querySelectorAll("fieldset[data-group]")) {
    let any = false;
    for (const element of group.querySelectorAll("[data-control]")) {
      const on = offered.has(element.dataset.control);
      (element.closest(".control") || element.closest("label") || element).hidden = !on;
      any = any || on;
    }
    group.hidden = !any;
  }
  $("path-row").hidden = !s.path;
  $("path").textContent = s.path_reason ? `${s.path} (${s.path_reason})` : s.path || "";
}

// The settings of the controls the rest of the state does not carry: the blur's radius, the split mode's
// compute device, the table's switches, choices and numbers (the CUDA graph, timing, the split mode's copy,
// the semaphores, the fps cap), and the animation clock. Each control that does not apply now is greyed with
// why as its tooltip, else the control table's line says what it does.
function showSettings(s) {
  if (s.settings) settings = s.settings;
  if (!settings) return;
  const what = (key) => (controlTable ? controlTable.controls.find((c) => c.key === key)?.what : "") || "";
  const shown = framesFrom(s);
  const radius = $("blur-radius");
  const noBlur = settings.blur_radius === null ? `${shown} has no blur; the postprocess scene has` : "";
  if (document.activeElement !== radius && settings.blur_radius !== null) radius.value = String(settings.blur_radius);
  radius.disabled = noBlur !== "";
  radius.title = noBlur || what("blur_radius");
  const devices = s.cuda_devices.map((label, ordinal) => ({ value: String(ordinal), label }));
  const noSplit = devices.length === 0 ? "no CUDA device" : settings.choices?.split_copy?.why_not || "";
  showSelect("compute-device", devices.length ? devices : [{ value: "-1", label: "none" }],
             String(settings.compute_device), noSplit, (value) => send({ compute_device: Number(value) }));
  $("transfer").textContent = settings.transfer;
  // The table's switches, choices and numbers: each its value, greyed with why where it does not apply now.
  for (const element of document.querySelectorAll("fieldset[data-group] [data-widget]")) {
    const key = element.dataset.control;
    const widget = element.dataset.widget;
    const now = ({ switch: settings.switches, choice: settings.choices, number: settings.numbers }[widget] || {})[key];
    if (!now) continue;
    if (widget === "switch") element.checked = now.on;
    else if (widget === "choice") element.value = now.value;
    else if (widget === "number" && document.activeElement !== element && !element.dataset.typed) {
      element.value = String(now.value);
    }
    element.dataset.current = String(widget === "switch" ? now.on : now.value);
    for (const part of [element, $(`apply-${key}`)].filter(Boolean)) {
      part.disabled = now.why_not !== "";
      part.title = now.why_not || what(key);
    }
  }
  // The app's clock where it stopped; a Python viewer's time is its caller's loop (viewer.poll()).
  $("clock").textContent = !paused() ? "" : s.source === "viewer" ? "the caller's loop waits in poll()"
    : `stopped at ${settings.clock_s.toFixed(3)} s`;
  $("clock").dataset.clockS = String(settings.clock_s);
}

function showState(s) {
  showControls(s);
  showSettings(s);
  showViewer(s);
  $("api").textContent = `${s.api_name} on ${s.adapter}`;  // the adapter's name may have parentheses
  $("cuda").textContent = s.cuda_device >= 0 ? String(s.cuda_device) : "none";
  $("frame-index").textContent = `${s.frame} (${s.size[0]}x${s.size[1]})`;
  if (!sizeTyped) [$("width").value, $("height").value] = [String(s.size[0]), String(s.size[1])];
  $("viewers").textContent = `${s.desk.viewers}, ${s.desk.frames_dropped} frames skipped for slow ones`;
  showLink(s.link);
  showSource(s);
  const noScene = s.source === "published" ? `the frames are published ${s.source_name}'s (--attach); the ` +
    "scenes are interop-lab's own: switch publishers under publisher" : "";
  showChoices("scenes", "scene", s.scenes.map((name) => ({ name, available: noScene === "", reason: noScene })),
              s.scene, (name) => send({ scene: name }));
  $("scenes-why").textContent = noScene;
  showChoices("modes", "mode", s.modes, s.mode, (name) => send({ mode: name }));
  const shown = framesFrom(s);
  const noFilter = s.filter === "" ? `${shown} has no filter; the postprocess scene has` : "";
  showChoices("filters", "filter", s.filters.map((name) => ({ name, available: noFilter === "", reason: noFilter })),
              s.filter, (name) => send({ filter: name }));
  const devices = s.cuda_devices.map((label, ordinal) => ({ value: String(ordinal), label }));
  const noDevice = devices.length === 0 ? "no CUDA device" : s.device_switch;
  showSelect("device", devices.length ? devices : [{ value: "-1", label: "none" }], String(s.cuda_device),
             noDevice, (value) => send({ device: Number(value) }));
  const flagChoices = s.flags.choices.map((name) => ({ value: name, label: name }));
  showSelect("map-flags", flagChoices, s.flags.map_flags, s.flags.why_not,
             (value) => send({ map_flags: value }));
  showSelect("register-flags", flagChoices, s.flags.register_flags, s.flags.why_not,
             (value) => send({ register_flags: value }));
  $("doctor").textContent =
    s.doctor || "this app has no doctor's report: interop-lab --doctor prints it, and --api gl's desk shows it";
  // A notice comes once (the server sends it in one state, not in every one): it stays until another does,
  // "" when a later command succeeded; a refused message's reply (receiveText) shows there too.
  if ("notice" in s) $("notice").textContent = s.notice;
  const rows = [...s.phases, ...s.desk.phases.filter((p) => p.samples > 0)].map((p) => {
    const tr = document.createElement("tr");
    tr.append(cell(p.phase), cell(p.clock));
    if (timerMissedTheWork(p)) {
      const missed = cell("not measured here");
      missed.colSpan = 3;
      missed.className = "hint";
      missed.title = `the ${p.clock} timer read almost nothing: the driver ran the work outside it ` +
        "(Mesa's llvmpipe rasterises at the flush); its time is in 'other (not timed)'";
      tr.append(missed);
    } else {
      tr.append(cell(ms(p.last_ms)), cell(ms(p.median_ms)), cell(ms(p.p90_ms)));
    }
    if (p.phase === "other (not timed)")
      tr.title = "the frame less the phases above: present and vsync, the host's own calls, and work a timer " +
        "did not see; with it the rows add up to the frame. Negative where phases overlapped, by the overlap";
    return tr;
  });
  $("timings").tBodies[0].replaceChildren(...rows);
  $("untimed").textContent = s.untimed;
  const compared = s.compared.map((mode) => {
    const median = (name) => {
      const phase = mode.phases.find((p) => p.phase === name);
      return phase ? (timerMissedTheWork(phase) ? "not measured here" : ms(phase.median_ms)) : "";
    };
    const tr = document.createElement("tr");
    tr.append(cell(mode.mode), cell(median("frame")), cell(median("kernel")), cell(median("draw")));
    return tr;
  });
  $("compared").tBodies[0].replaceChildren(...compared);
  // Nothing to compare (a viewer, or timings off): no empty table.
  $("compared").hidden = $("compared-title").hidden = compared.length === 0;
  drawTimeline(s.timeline);
  const frame = s.phases.find((p) => p.phase === "frame");
  if (frame) {
    plotHistory.push(frame.last_ms);
    if (plotHistory.length > kPlotLength) plotHistory.shift();
    drawPlot();
  }
}

// What makes the frames, as a sentence says it: "the wave scene", "published sim", "the array source".
function framesFrom(s) {
  if (s.scene) return `the ${s.scene} scene`;
  return s.source === "published" ? `published ${s.source_name}` : `the ${s.source_name} source`;
}

// The frames' source where it is another process's (--attach NAME): "published NAME" and how it is doing (the
// publisher's frame index, the frames skipped here, a publisher gone and its last frame kept), and a select of
// the names published now, which switches to another publisher ({"source": NAME}).
function showSource(s) {
  const published = s.source === "published";
  $("source-row").hidden = $("source-section").hidden = !published;
  $("source").textContent = published ? `published ${s.source_name}: ${s.source_status}` : "";
  if (!published) return;
  const names = s.publishers.includes(s.source_name) ? s.publishers : [s.source_name, ...s.publishers];
  const alone = names.length < 2 ? "nothing else is published now (interop-lab --attach lists what is)" : "";
  showSelect("source-select", names.map((name) => ({ value: name, label: name })), s.source_name, alone,
             (name) => send({ source: name }));
}

// This page's link as the desk measures it: the JPEG quality of changed stripes now and their scale where it
// is below 1 (the link cannot carry the frame rate even at the lowest quality), the kbit/s and frames/s this
// page acknowledged over the last second.
function showLink(link) {
  const shown = $("link");
  if (!link) return;
  const scale = link.scale > 1 ? ` · ${{ 2: "½", 4: "¼" }[link.scale] || `1/${link.scale}`} scale` : "";
  shown.textContent = `quality ${link.quality}${scale}, ${Math.round(link.kbit_s)} kbit/s, ` +
    `${link.fps.toFixed(1)} frames/s`;
  shown.title = link.paced ? "the desk sends the stripes that changed at the quality this link keeps up with, " +
    "at ½ or ¼ scale where even the lowest quality is too much; still stripes are sent again once at a high " +
    "quality and full scale" : "";
  shown.dataset.quality = String(link.quality);
  shown.dataset.scale = String(link.scale);
  shown.dataset.kbitS = String(link.kbit_s);
  shown.dataset.fps = String(link.fps);
  shown.dataset.paced = String(link.paced);
}

// A GPU timer (GL's, Vulkan's) that did not see the work around a draw or a copy: the page says "not
// measured here", as the panel does; the server judges it (PhaseStats::measured, app/timing/timing.hpp).
function timerMissedTheWork(phase) {
  return phase.measured === false;
}

// Each lane's bars in its own colour, so that the two contexts' turns read at a glance; the other lane's
// (the frame's stretches no span covers) grey.
const kLaneColours = { graphics: "#6cf", "hand-off": "#fc6", cuda: "#9e6", cpu: "#e96", desk: "#c9f", other: "#777" };

// One frame's timeline (the state's "timeline": lanes and spans in ms from the frame's start, each lane's
// clock brought onto the host's by the app): a row per lane, its spans as bars where the app placed them,
// named where they are wide enough; a lane off the frame's clock is listed with why, not drawn.
function drawTimeline(timeline) {
  const canvas = $("timeline");
  const context = canvas.getContext("2d");
  const rowHeight = 18, labelWidth = 64;
  canvas.height = Math.max(1, timeline.lanes.length) * rowHeight + 14;
  context.clearRect(0, 0, canvas.width, canvas.height);
  const spans = timeline.spans;
  const start = Math.min(0, ...spans.map((span) => span.start_ms));
  const end = Math.max(timeline.frame_ms, ...spans.map((span) => span.end_ms), 0.001);
  const x = (ms) => labelWidth + ((ms - start) / (end - start)) * (canvas.width - labelWidth - 4);
  context.font = "11px system-ui, sans-serif";
  timeline.lanes.forEach((lane, row) => {
    const y = row * rowHeight;
    context.fillStyle = "#ccc";
    context.fillText(lane.lane, 2, y + 12);
    if (!lane.placed) {
      context.fillStyle = "#777";
      context.fillText(`not on the frame's clock (${lane.clock})`, labelWidth, y + 12);
      return;
    }
    for (const span of spans.filter((s) => s.lane === lane.lane)) {
      const width = Math.max(1, x(span.end_ms) - x(span.start_ms));
      context.fillStyle = kLaneColours[lane.lane] || "#6cf";
      context.fillRect(x(span.start_ms), y + 3, width, rowHeight - 6);
      if (width > context.measureText(span.name).width + 4) {
        context.fillStyle = "#111";
        context.fillText(span.name, x(span.start_ms) + 2, y + 13);
      }
    }
  });
  context.strokeStyle = "#555";
  context.beginPath();
  context.moveTo(x(0), 0);
  context.lineTo(x(0), canvas.height - 12);  // the frame's start
  context.stroke();
  context.fillStyle = "#aaa";
  context.fillText(`${start.toFixed(2)} .. ${end.toFixed(2)} ms`, labelWidth, canvas.height - 2);
  const items = timeline.lanes.map((lane) => {
    const li = document.createElement("li");
    li.dataset.lane = lane.lane;
    li.dataset.placed = String(lane.placed);
    const own = spans.filter((s) => s.lane === lane.lane)
      .map((s) => `${s.name} ${s.start_ms.toFixed(3)}..${s.end_ms.toFixed(3)}`).join(", ");
    const within = lane.placed && lane.uncertainty_ms > 0 ? ` (clock within ${lane.uncertainty_ms.toFixed(3)} ms)` : "";
    const note = lane.placed && lane.why_not ? `; ${lane.why_not}` : "";
    li.textContent = `${lane.lane} (${lane.clock}): ${lane.placed ? own + within + note : lane.why_not}`;
    return li;
  });
  $("timeline-lanes").replaceChildren(...items);
  canvas.dataset.frame = String(timeline.frame);
  canvas.dataset.spans = String(spans.length);
}

function drawPlot() {
  const canvas = $("plot");
  const context = canvas.getContext("2d");
  context.clearRect(0, 0, canvas.width, canvas.height);
  const top = Math.max(1, ...plotHistory) * 1.1;
  context.strokeStyle = "#6cf";
  context.beginPath();
  plotHistory.forEach((value, i) => {
    const x = (i / (kPlotLength - 1)) * canvas.width;
    const y = canvas.height - (value / top) * canvas.height;
    if (i === 0) context.moveTo(x, y);
    else context.lineTo(x, y);
  });
  context.stroke();
  context.fillStyle = "#aaa";
  context.fillText(`frame ms (max ${top.toFixed(1)})`, 4, 12);
}

// A picture's page (the state's "viewer" tools: a Python viewer's, or the app's while it shows a picture, as
// with --attach): its frame stays fitted to the pane, and the wheel, a drag, the zoom buttons and the keys 1
// and F move the picture inside the frame instead, as a viewer's window does: commands in the frame's pixels,
// which the page maps from the canvas's CSS pixels. The cursor's pixel goes to the app or viewer (at most
// every kHoverEveryMs), which answers with the picture's value there; the colorbar, a stack's frame and the
// caller's controls are built from the state.
const kHoverEveryMs = 50;
let hoverTimer = null;
let hoverPoint = null;  // the cursor's frame point not sent yet
let lastHover = null;   // the cursor's frame point last sent; null off the frame
let dragFrom = null;    // the frame point a drag is at
let panPending = null;  // the drag's offset not sent yet
let colormapShown = null;

function isViewer() {
  return Boolean(state && state.viewer);
}

function framePoint(event) {
  const canvas = $("frame");
  const rect = canvas.getBoundingClientRect();
  return [(event.clientX - rect.left) * canvas.width / rect.width,
          (event.clientY - rect.top) * canvas.height / rect.height];
}

function frameCentre() {
  return [$("frame").width / 2, $("frame").height / 2];
}

function sendHover() {
  hoverTimer = null;
  if (!hoverPoint) return;
  lastHover = hoverPoint;
  hoverPoint = null;
  send({ hover: lastHover });
}

function sendPan() {
  if (panPending) send({ pan: panPending });
  panPending = null;
}

function showViewer(s) {
  const tools = s.viewer;
  $("viewer-tools").hidden = !tools;
  $("frame").classList.toggle("viewer", Boolean(tools));
  if (!tools) return;
  if (zoom !== 0) {  // the page's own zoom gives way to the viewer's
    zoom = 0;
    showZoom();
  }
  $("zoom-level").textContent = tools.free ? `zoom ${+tools.scale[0].toPrecision(3)}x` :
    `${tools.fit}, ${+tools.scale[0].toPrecision(3)}x`;
  $("readout").textContent = tools.readout;
  $("readout").dataset.cursor = tools.cursor ? tools.cursor.join(",") : "";
  $("colorbar-box").hidden = !tools.colorbar;
  if (tools.colorbar) {
    $("colorbar-low").textContent = String(+tools.colorbar.low.toPrecision(6));
    $("colorbar-high").textContent = String(+tools.colorbar.high.toPrecision(6));
    const colours = settings ? settings.colormap : "";
    if (colours && colours !== colormapShown) {
      colormapShown = colours;
      const context = $("colorbar").getContext("2d");
      for (let i = 0; i < 256; ++i) {
        context.fillStyle = `#${colours.slice(i * 6, i * 6 + 6)}`;
        context.fillRect(i, 0, 1, 14);
      }
    }
  }
  $("stack-row").hidden = tools.frames < 2;
  const stack = $("stack-index");
  stack.max = String(Math.max(0, tools.frames - 1));
  if (document.activeElement !== stack) stack.value = String(tools.index);
  $("stack-text").textContent = `${tools.index} of ${tools.frames}`;
  showViewerControls(tools.controls);
}

// The caller's controls, rebuilt only when which they are changes (so a drag on a slider is not lost to a
// redraw); their values follow the state except the one being used.
function showViewerControls(controls) {
  const box = $("viewer-controls");
  const key = JSON.stringify(controls.map((c) => [c.name, c.kind, c.low, c.high, c.options]));
  if (box.dataset.key !== key) {
    box.dataset.key = key;
    box.replaceChildren(...controls.map((c) => {
      const label = document.createElement("label");
      label.dataset.name = c.name;
      let field;
      const set = (value) => send({ control: { name: c.name, value } });
      if (c.kind === "slider") {
        field = document.createElement("input");
        field.type = "range";
        field.min = String(c.low);
        field.max = String(c.high);
        field.step = "any";
        field.addEventListener("input", () => set(Number(field.value)));
      } else if (c.kind === "checkbox") {
        field = document.createElement("input");
        field.type = "checkbox";
        field.addEventListener("change", () => set(field.checked));
      } else if (c.kind === "button") {
        field = document.createElement("button");
        field.type = "button";
        field.textContent = c.name;
        field.addEventListener("click", () => set(true));
      } else {
        field = document.createElement("select");
        field.replaceChildren(...c.options.map((name) => {
          const option = document.createElement("option");
          option.value = option.textContent = name;
          return option;
        }));
        field.addEventListener("change", () => set(field.value));
      }
      field.dataset.kind = c.kind;
      const value = document.createElement("span");
      value.className = "hint";
      if (c.kind === "button") label.append(field, " ", value);
      else label.append(`${c.name} `, field, " ", value);
      return label;
    }));
  }
  controls.forEach((c, i) => {
    const label = box.children[i];
    const field = label.querySelector("[data-kind]");
    if (document.activeElement !== field) {
      if (c.kind === "checkbox") field.checked = c.value;
      else if (c.kind !== "button") field.value = String(c.value);
    }
    label.dataset.value = String(c.value);
    label.querySelector(".hint").textContent = c.kind === "slider" ? String(+c.value.toPrecision(4)) :
      c.kind === "button" ? `${c.value} presses` : "";
  });
}

$("frame").addEventListener("mousedown", (event) => {
  if (!isViewer() || event.button !== 0) return;
  event.preventDefault();
  dragFrom = framePoint(event);
});
window.addEventListener("mouseup", () => {
  dragFrom = null;
  sendPan();
});
window.addEventListener("mousemove", (event) => {
  if (!isViewer() || !dragFrom) return;
  const at = framePoint(event);
  const [dx, dy] = [at[0] - dragFrom[0], at[1] - dragFrom[1]];
  dragFrom = at;
  // One pan command a frame of the page's, however many moves came.
  if (!panPending) requestAnimationFrame(sendPan);
  panPending = panPending ? [panPending[0] + dx, panPending[1] + dy] : [dx, dy];
});
$("frame").addEventListener("mousemove", (event) => {
  if (!isViewer()) return;
  hoverPoint = framePoint(event);
  if (!hoverTimer) hoverTimer = setTimeout(sendHover, kHoverEveryMs);
});
$("frame").addEventListener("mouseleave", () => {
  if (!isViewer()) return;
  hoverPoint = null;
  lastHover = null;
  send({ hover: null });
});
$("stack-index").addEventListener("input", () => send({ index: Number($("stack-index").value) }));

// The frame's scale: fit (the pane's width), 1:1 (a frame pixel to a device pixel) or a zoom; zoomed in, the
// pixels are drawn as squares (image-rendering: pixelated), not smoothed.
function showZoom() {
  const canvas = $("frame");
  canvas.style.width = zoom === 0 ? "" : `${(canvas.width * zoom) / devicePixelRatio}px`;
  const scale = zoom === 0 ? (canvas.getBoundingClientRect().width * devicePixelRatio) / canvas.width : zoom;
  canvas.classList.toggle("pixelated", scale > 1);
  $("zoom-level").textContent = zoom === 0 ? "fit" : `${Math.round(zoom * 100)}%`;
  canvas.dataset.zoom = zoom === 0 ? "fit" : String(zoom);
}
function zoomBy(factor) {
  const canvas = $("frame");
  const now = zoom || (canvas.getBoundingClientRect().width * devicePixelRatio) / canvas.width;
  zoom = Math.min(32, Math.max(1 / 16, now * factor));
  if (Math.abs(zoom - 1) < 0.02) zoom = 1;  // stepping through 1:1 lands on it
  showZoom();
}
// A viewer's picture moves inside its frame (commands); the app's frame is scaled on the page.
$("zoom-fit").addEventListener("click", () => {
  if (isViewer()) return send({ fit: true });
  zoom = 0;
  showZoom();
});
$("zoom-1").addEventListener("click", () => {
  if (isViewer()) return send({ actual_size: frameCentre() });
  zoom = 1;
  showZoom();
});
$("zoom-in").addEventListener("click", () => (isViewer() ? send({ zoom: [...frameCentre(), 1.25] }) : zoomBy(1.25)));
$("zoom-out").addEventListener("click", () => (isViewer() ? send({ zoom: [...frameCentre(), 0.8] }) : zoomBy(0.8)));
$("frame-box").addEventListener("wheel", (event) => {
  event.preventDefault();
  const factor = event.deltaY < 0 ? 1.25 : 0.8;
  if (isViewer()) send({ zoom: [...framePoint(event), factor] });
  else zoomBy(factor);
}, { passive: false });
window.addEventListener("resize", showZoom);

for (const id of ["width", "height"])  // typing, or a field emptied and left ("change" without "input")
  for (const event of ["input", "change"]) $(id).addEventListener(event, () => { sizeTyped = true; });
$("apply-size").addEventListener("click", () => {
  sizeTyped = false;
  send({ size: [Number($("width").value), Number($("height").value)] });
});
$("blur-radius").addEventListener("change", () => send({ blur_radius: Number($("blur-radius").value) }));
// Whether the animation clock is paused, as the last settings said.
function paused() {
  return Boolean(settings && settings.switches && settings.switches.pause && settings.switches.pause.on);
}

// The controls the table draws by its group (app/controls/controls.hpp: a Switch, an Action, a Choice or a
// Number with a Group), in the table's order, each with its key as id and data-control: a checkbox that sends
// {KEY: on}, a button that sends {KEY: true}, a select of the row's options that sends {KEY: option}, and a
// number field in the row's range with its button (id apply-KEY) that sends {KEY: number}.
function buildGroups(table) {
  for (const group of document.querySelectorAll("fieldset[data-group]")) {
    const hint = group.querySelector(":scope > .hint");
    for (const control of table.controls) {
      if (control.group !== group.dataset.group || control.not_on_page || $(control.key)) continue;
      const labelled = (input, className) => {
        const label = document.createElement("label");
        if (className) label.className = className;
        if (className === "switch") label.append(input, ` ${control.label}`);
        else label.append(`${control.label} `, input);
        return label;
      };
      let element;
      let input;
      if (control.widget === "switch") {
        input = document.createElement("input");
        input.type = "checkbox";
        input.addEventListener("change", () => send({ [control.key]: input.checked }));
        element = labelled(input, "switch");
      } else if (control.widget === "action") {
        input = element = document.createElement("button");
        element.type = "button";
        element.textContent = control.label;
        element.title = control.what;
        element.addEventListener("click", () => send({ [control.key]: true }));
      } else if (control.widget === "choice") {
        input = document.createElement("select");
        input.replaceChildren(...control.options.map((name) => {
          const option = document.createElement("option");
          option.value = option.textContent = name;
          return option;
        }));
        input.addEventListener("change", () => send({ [control.key]: input.value }));
        element = labelled(input);
      } else if (control.widget === "number") {
        input = document.createElement("input");
        input.type = "number";
        input.min = String(control.range.zero ? 0 : control.range.low);
        input.max = String(control.range.high);
        const apply = document.createElement("button");
        apply.type = "button";
        apply.textContent = "set";
        apply.id = `apply-${control.key}`;
        // What is typed stays until it is sent (a state message does not overwrite it), by the button or Enter.
        for (const event of ["input", "change"]) input.addEventListener(event, () => { input.dataset.typed = "1"; });
        input.addEventListener("keydown", (event) => { if (event.key === "Enter") apply.click(); });
        apply.addEventListener("click", () => {
          delete input.dataset.typed;
          send({ [control.key]: Number(input.value) });
        });
        element = document.createElement("span");
        element.className = "control";
        element.append(labelled(input), " ", apply);
        if (control.range.zero) {
          const zero = document.createElement("span");
          zero.className = "hint";
          zero.textContent = ` 0: ${control.range.zero}`;
          element.append(zero);
        }
      } else {
        continue;
      }
      input.id = control.key;
      input.dataset.control = control.key;
      if (control.widget !== "action") input.dataset.widget = control.widget;
      group.insertBefore(element, hint);
    }
  }
}
// The window's keys for the animation clock, where the page is not being typed into: Space, period.
document.addEventListener("keydown", (event) => {
  if (event.target.closest && event.target.closest("input, select, textarea, button")) return;
  if (event.key === " " && !$("clock-section").hidden) {
    event.preventDefault();
    send({ pause: !paused() });
  } else if (event.key === "." && !$("clock-section").hidden) {
    send({ step: true });
  } else if (event.key === "1" && isViewer()) {
    send({ actual_size: lastHover || frameCentre() });
  } else if ((event.key === "f" || event.key === "F") && isViewer()) {
    send({ fit: true });
  }
});
$("screenshot").addEventListener("click", () => {
  const link = document.createElement("a");
  link.href = `screenshot.png?token=${encodeURIComponent(token)}`;
  link.download = "";  // the server's name: interop-lab-frame-N.png, N the frame it holds
  document.body.append(link);
  link.click();
  link.remove();
});

$("screenshot").disabled = true;
$("screenshot").title = "no frame yet";
showZoom();
fetch(`controls.json?token=${encodeURIComponent(token)}`)
  .then((response) => (response.ok ? response.json() : null))
  .then((table) => {
    controlTable = table;
    if (!table) return;
    buildGroups(table);
    if (state) {
      showControls(state);
      showSettings(state);
    }
  })
  .catch(() => {});
connect();
