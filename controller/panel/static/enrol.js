// Staff enrolment page: capture the mat, check the crops, save the set; per-kind reading confidence.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const token = () => sessionStorage.getItem("jantaku-staff-token") || "";
  const KINDS = [..."123456789"].map((n) => n + "m").concat([..."123456789"].map((n) => n + "p"),
    [..."123456789"].map((n) => n + "s"), [..."1234567"].map((n) => n + "z"), ["0m", "0p", "0s"],
    [..."12345678"].map((n) => n + "f"), ["back"]);
  let shown = "";      // the capture whose crops are on the page
  let polling = null;

  function el(tag, attrs = {}, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) { if (k === "class") node.className = v; else node.setAttribute(k, v); }
    for (const c of children) if (c !== null && c !== undefined) node.append(c instanceof Node ? c : String(c));
    return node;
  }

  async function call(path, body) {
    const res = await fetch(path, {
      method: body === undefined ? "GET" : "POST",
      headers: { "Authorization": `Bearer ${token()}`, "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const data = res.headers.get("content-type")?.includes("json") ? await res.json() : await res.blob();
    if (!res.ok) throw new Error(`${res.status}: ${data.error || res.statusText}`);
    return data;
  }

  function say(text, isError = false) { $("job-msg").textContent = text; $("job-msg").className = isError ? "msg error" : "msg"; }

  async function showPlaces(places) {
    const key = JSON.stringify(places);
    if (key === shown) return;
    shown = key;
    const cells = [];
    for (const p of places) {
      const img = el("img", { alt: `place ${p.place}` });
      const select = el("select", { "data-place": p.place });
      select.append(new Option("leave out", ""));
      for (const k of KINDS) select.append(new Option(k, k));
      select.value = p.label;
      const odd = p.read !== p.label;
      cells.push(el("div", { class: odd ? "place odd" : "place" }, img, el("div", {}, `${p.place} `, select),
        el("div", { class: "read" }, odd ? `model reads ${p.read} (${p.confidence})` : "")));
      call(`/api/staff/enrol/crop/${p.place - 1}`).then((blob) => { img.src = URL.createObjectURL(blob); })
        .catch(() => {});
    }
    $("places").replaceChildren(...cells);
    $("save").disabled = places.length === 0;
  }

  function showHistory(history) {
    const days = [...new Set(Object.values(history).flat().map((b) => b.from))].sort((a, b) => a - b).slice(-10);
    const head = el("tr", {}, el("th", {}, "kind"), ...days.map((d) => el("th", {}, new Date(d * 1000).toISOString().slice(5, 10))));
    const rows = Object.entries(history).map(([kind, buckets]) => el("tr", {}, el("th", {}, kind), ...days.map((d) => {
      const b = buckets.find((x) => x.from === d);
      if (!b) return el("td", {}, "");
      return el("td", { class: b.mean_confidence < 0.8 ? "low" : "", title: `${b.n} read, ${Math.round(b.right * 100)} % right` },
        b.mean_confidence.toFixed(2));
    })));
    $("history").replaceChildren(rows.length ? el("table", { class: "confidence" }, head, ...rows)
      : el("p", {}, "nothing confirmed yet"));
  }

  async function refresh() {
    try {
      const s = await call("/api/staff/enrol/status");
      $("token-msg").textContent = "token accepted";
      $("set-in-use").textContent = s.tile_set || "none";
      $("set-file").textContent = s.set_file;
      $("confirmed-count").textContent = Object.values(s.confirmed).reduce((a, b) => a + b, 0);
      const job = s.job;
      const running = job.state === "running";
      $("step").textContent = running ? `${job.name}: ${job.step}` : (job.state === "idle" ? "" : `${job.name}: ${job.state}`);
      $("progress").hidden = !running || !job.total;
      if (job.total) { $("progress").max = job.total; $("progress").value = job.done; }
      if (job.message) say(job.message, job.state === "failed");
      for (const b of ["capture", "add-confirmed"]) $(b).disabled = running;
      if (!running) await showPlaces(s.places);
      showHistory(s.history);
      if (running && !polling) polling = setInterval(refresh, 500);
      if (!running && polling) { clearInterval(polling); polling = null; }
    } catch (err) { $("token-msg").textContent = err.message; }
  }

  async function start(path, body) {
    try { await call(path, body); say("working…"); refresh(); if (!polling) polling = setInterval(refresh, 500); }
    catch (err) { say(err.message, true); }
  }

  $("token").value = token();
  $("token-save").onclick = () => { sessionStorage.setItem("jantaku-staff-token", $("token").value); refresh(); };
  $("capture").onclick = () => { shown = ""; start("/api/staff/enrol/capture", {}); };
  $("save").onclick = () => start("/api/staff/enrol/save",
    { labels: [...document.querySelectorAll("#places select")].map((s) => s.value) });
  $("add-confirmed").onclick = () => start("/api/staff/enrol/add_confirmed", {});
  if (token()) refresh();
})();
