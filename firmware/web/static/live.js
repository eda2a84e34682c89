// Live updates for the page at /: each server-sent "state" replaces the game panel; "outage" and a
// lost connection show the banner, which the next state hides. EventSource reconnects by itself.
(function () {
  "use strict";
  var live = document.getElementById("live");
  var banner = document.getElementById("banner");
  if (!live || !window.EventSource) { return; }
  function say(text) { banner.textContent = text; banner.hidden = !text; }
  var source = new EventSource(live.dataset.events);
  source.addEventListener("state", function (e) { live.innerHTML = e.data; say(""); });
  source.addEventListener("outage", function (e) { say(e.data); });
  source.addEventListener("error", function () {
    if (source.readyState !== EventSource.OPEN) { say("Lost the connection to the table: trying again…"); }
  });
})();
