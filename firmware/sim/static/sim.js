// The simulator's page: draws what /sim/events says the table is, and turns clicks into inputs.
// Inputs are sent one after another, in the order they were made; body[data-inputs] counts the
// ones answered, so a test (or a curious person) can tell when an input has reached the screen.
(function () {
  "use strict";
  var oled = document.getElementById("oled");
  var message = document.getElementById("message");
  var statusLine = document.getElementById("status");
  var readersBox = document.getElementById("readers");
  var list = document.getElementById("components");
  var why = document.getElementById("why");
  var search = document.getElementById("search");
  var state = null;
  var chosen = null;        // a reader the user picked; null: the table's own target
  var shownComponents = "";
  var queue = Promise.resolve();
  var answered = 0;

  function send(path) {
    queue = queue.then(function () {
      return fetch(path, { method: "POST", headers: { "x-tablemate": "sim" } }).then(function (response) {
        return response.json().then(function (body) {
          message.textContent = response.ok ? "" : body.error;
        });
      }).catch(function () {
        message.textContent = "The table does not answer: is tablemate sim still running?";
      }).then(function () {
        answered += 1;
        document.body.dataset.inputs = String(answered);
      });
    });
  }

  function tap(reader, uid) {
    send("/sim/tap?reader=" + encodeURIComponent(reader) + "&uid=" + encodeURIComponent(uid));
  }

  function plain(text) {
    return text.normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase().match(/[a-z0-9]+/g) || [];
  }

  // every typed word starts a different word of the name (numbers whole), as the console matches
  function fits(typed, label) {
    var free = plain(label);
    return typed.every(function (word) {
      var i = free.findIndex(function (w) { return /^\d+$/.test(word) ? w === word : w.indexOf(word) === 0; });
      if (i < 0) { return false; }
      free.splice(i, 1);
      return true;
    });
  }

  function target() { return chosen || (state && state.target); }

  function drawReaders() {
    var key = JSON.stringify(state.readers);
    if (readersBox.dataset.key !== key) {
      readersBox.dataset.key = key;
      readersBox.textContent = "";
      state.readers.forEach(function (r) {
        var b = document.createElement("button");
        b.type = "button";
        b.className = "reader";
        b.dataset.reader = r.name;
        b.textContent = r.label;
        readersBox.appendChild(b);
      });
    }
    readersBox.querySelectorAll(".reader").forEach(function (b) {
      b.classList.toggle("target", b.dataset.reader === target());
    });
  }

  function drawComponents() {
    var key = JSON.stringify([state.components, state.empty]);
    if (key !== shownComponents) {
      shownComponents = key;
      list.textContent = "";
      var group = null;
      state.components.forEach(function (c) {
        if (!group || group.dataset.name !== c.group) {
          var heading = document.createElement("h3");
          heading.textContent = c.group;
          group = document.createElement("div");
          group.className = "group";
          group.dataset.name = c.group;
          list.appendChild(heading);
          list.appendChild(group);
        }
        var b = document.createElement("button");
        b.type = "button";
        b.className = "component";
        b.draggable = true;
        b.dataset.uid = c.uid;
        b.textContent = c.label;
        group.appendChild(b);
      });
      if (!state.components.length) { list.textContent = state.empty; }
    }
    var now = new Set(state.now);
    var typed = plain(search.value);
    list.querySelectorAll(".component").forEach(function (b) {
      b.classList.toggle("later", !now.has(b.dataset.uid));
      b.hidden = typed.length > 0 && !fits(typed, b.textContent);
    });
    list.querySelectorAll(".group").forEach(function (g) {
      var empty = !g.querySelector(".component:not([hidden])");
      g.hidden = empty;
      g.previousElementSibling.hidden = empty;
    });
    why.textContent = state.why;
  }

  function draw(next) {
    state = next;
    if (state.frame && oled.getAttribute("src") !== state.frame) { oled.setAttribute("src", state.frame); }
    oled.dataset.frames = String(state.frames);
    statusLine.textContent = state.status;
    drawReaders();
    drawComponents();
  }

  // -- inputs ----------------------------------------------------------------------------------------

  list.addEventListener("click", function (e) {
    var b = e.target.closest(".component");
    if (b && target()) { tap(target(), b.dataset.uid); }
  });
  list.addEventListener("dragstart", function (e) {
    var b = e.target.closest(".component");
    if (b) { e.dataTransfer.setData("text/plain", b.dataset.uid); }
  });
  readersBox.addEventListener("click", function (e) {
    var b = e.target.closest(".reader");
    if (!b) { return; }
    chosen = chosen === b.dataset.reader ? null : b.dataset.reader;
    drawReaders();
  });
  readersBox.addEventListener("dragover", function (e) {
    var b = e.target.closest(".reader");
    if (b) { e.preventDefault(); b.classList.add("over"); }
  });
  readersBox.addEventListener("dragleave", function (e) {
    var b = e.target.closest(".reader");
    if (b) { b.classList.remove("over"); }
  });
  readersBox.addEventListener("drop", function (e) {
    var b = e.target.closest(".reader");
    if (!b) { return; }
    e.preventDefault();
    b.classList.remove("over");
    tap(b.dataset.reader, e.dataTransfer.getData("text/plain"));
  });
  search.addEventListener("input", function () { if (state) { drawComponents(); } });
  search.addEventListener("keydown", function (e) {
    if (e.key !== "Enter") { return; }
    var first = list.querySelector(".component:not([hidden]):not(.later)") || list.querySelector(".component:not([hidden])");
    if (first && target()) { tap(target(), first.dataset.uid); search.select(); }
  });

  document.querySelectorAll(".button").forEach(function (b) {
    function press() { if (!b.classList.contains("down")) { b.classList.add("down"); send("/sim/button?role=" + b.dataset.role + "&down=1"); } }
    function release() { if (b.classList.contains("down")) { b.classList.remove("down"); send("/sim/button?role=" + b.dataset.role + "&down=0"); } }
    b.addEventListener("pointerdown", function (e) { b.setPointerCapture(e.pointerId); press(); });
    b.addEventListener("pointerup", release);
    b.addEventListener("pointercancel", release);
    b.addEventListener("keydown", function (e) { if ((e.key === " " || e.key === "Enter") && !e.repeat) { e.preventDefault(); press(); } });
    b.addEventListener("keyup", function (e) { if (e.key === " " || e.key === "Enter") { release(); } });
  });
  document.querySelectorAll(".turn").forEach(function (b) {
    b.addEventListener("click", function () { send("/sim/turn?steps=" + b.dataset.turn); });
  });

  // -- updates ---------------------------------------------------------------------------------------

  fetch("/sim/state").then(function (r) { return r.json(); }).then(draw);
  if (window.EventSource) {
    var source = new EventSource("/sim/events");
    source.addEventListener("table", function (e) { draw(JSON.parse(e.data)); message.dataset.lost = ""; });
    source.addEventListener("error", function () {
      if (source.readyState !== EventSource.OPEN) { message.textContent = "Lost the table: trying again…"; }
    });
  }
})();
