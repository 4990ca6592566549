// Staff view: forms, not JSON. Every action is a POST with the token; the daemon checks it on a
// copy of the game first (a refusal says why and changes nothing), then stores and applies it.
// Hands and seats are numbered as the table display numbers them (hand 1, seat 1 = first dealer).
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const P = JantakuPanel;
  const el = P.el;
  const token = () => sessionStorage.getItem("jantaku-staff-token") || "";
  const TILES = [..."123456789"].flatMap((n) => ["m", "p", "s"].map((s) => n + s))
    .concat(["0m", "0p", "0s"], [..."1234567"].map((n) => n + "z"));
  let state = null;

  function say(text, isError = false) {
    const node = $("msg");
    node.textContent = text; node.className = isError ? "msg error" : "msg";
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

  async function act(action, body, label) {
    try {
      const out = await call(`/api/staff/${action}`, body);
      say(`${label || action}: done (event ${out.seq})`);
      refreshStatus();
    } catch (err) { say(`${label || action}: ${err.message}`, true); }
  }

  const by = () => $("by").value.trim() || "staff";
  const correct = (what, data, reason, label) => act("correct", { what, reason, data: { ...data, by: by() } }, label || what);
  const who = (i) => `${P.who(state || {}, i)} (seat ${i + 1})`;

  function seatOptions() {
    const n = (state && state.seats || []).length || 4;
    for (const sel of document.querySelectorAll("select.seat")) {
      const keep = sel.value;
      sel.replaceChildren(...Array.from({ length: n }, (_, i) => new Option(who(i), String(i))));
      if (keep) sel.value = keep;
    }
    const box = $("score-inputs");
    if (box.children.length !== n) {
      box.replaceChildren(...Array.from({ length: n }, (_, i) => el("label", {}, el("span", { class: "score-name" }, who(i)), " ",
        el("input", { type: "number", step: "100", class: "score-input", "data-seat": String(i) }))));
      for (const input of box.querySelectorAll("input")) input.oninput = scoreSum;
    }
  }

  function scoreSum() {
    const values = [...document.querySelectorAll(".score-input")].map((i) => Number(i.value || 0));
    const sticks = Number(document.querySelector('[data-what="scores"] [name="sticks"]').value || 0);
    const now = (state.seats || []).reduce((a, s) => a + s.score, 0) + 1000 * (state.riichi_sticks || 0);
    const total = values.reduce((a, b) => a + b, 0) + 1000 * sticks;
    $("score-sum").textContent = `total with sticks ${total.toLocaleString("en-US")} (the table holds ${now.toLocaleString("en-US")}`
      + (total === now ? ": adds up)" : `: ${total - now > 0 ? "+" : ""}${total - now})`);
  }

  function formData(what) {
    const form = document.querySelector(`.form[data-what="${what}"]`);
    const data = {};
    for (const input of form.querySelectorAll("[name]")) {
      let v = input.value;
      if (input.name === "index") v = Number(v) - 1;                    // shown from 1
      else if (input.name === "seat" || input.name === "from" || input.name === "sticks") v = Number(v);
      else if (input.name === "is_ura") v = v === "true";
      else if (input.name === "win_tile" && !v) continue;
      else if (input.name === "tile" && !v) { data.tile = null; continue; }
      data[input.name] = v;
    }
    if (what === "scores") data.scores = [...document.querySelectorAll(".score-input")].map((i) => Number(i.value));
    return data;
  }

  function alertCard(a) {
    const words = (P.t && window.__jantaku.dict && window.__jantaku.dict.alert[a.rule]) || a.rule;
    const seat = a.seat !== null && a.seat !== undefined ? who(a.seat) : "no one in particular";
    const card = el("div", { class: "alert-card" + (a.dismissed ? " dismissed" : ""), "data-index": a.index },
      el("div", {}, el("b", {}, words), ` — hand ${a.hand_index + 1}, ${seat} `, a.tile ? P.tile(a.tile) : null),
      el("div", {}, a.message ? `(${a.message.replace(/seat (\d)/g, (_, n) => who(Number(n)))})` : ""));
    if (a.evidence) {
      const img = el("img", { class: "calibration", alt: `evidence for alert ${a.index + 1}` });
      card.append(el("div", { class: "evidence" }, img));
      call(`/api/staff/evidence/${a.evidence}?alert=${a.index}`).then((blob) => { img.src = URL.createObjectURL(blob); })
        .catch((err) => img.replaceWith(el("span", {}, `evidence: ${err.message}`)));
    }
    if (!a.dismissed) {
      const reason = el("input", { placeholder: "why it is harmless", class: "dismiss-reason" });
      const button = el("button", { class: "dismiss" }, "dismiss");
      button.onclick = () => correct("dismiss_alert", { index: a.index }, reason.value, `dismiss alert ${a.index + 1}`);
      card.append(el("label", {}, "reason ", reason), button);
    } else card.append(el("div", {}, "dismissed"));
    return card;
  }

  function historyRow(h) {
    const what = h.what.replace(/_/g, " ");
    const shown = Object.entries(h.data || {}).filter(([k]) => k !== "by").map(([k, v]) =>
      `${k} ${k === "seat" || k === "from" || k === "index" || k === "id" ? Number(v) + 1 : JSON.stringify(v)}`).join(", ");
    const row = el("li", { class: h.undone_by !== null && h.undone_by !== undefined ? "undone" : "", "data-id": h.id },
      `hand ${Number(h.hand_index) + 1}: ${what}${shown ? " (" + shown + ")" : ""} — by ${h.by}: ${h.reason || ""}`);
    if (h.can_undo) {
      const button = el("button", { class: "undo" }, "undo");
      button.onclick = () => correct("undo", { id: h.id }, `undo entry ${h.id + 1}`, `undo ${h.id + 1}`);
      row.append(" ", button);
    }
    return row;
  }

  async function refreshStatus() {
    try {
      const s = await call("/api/staff/status");
      $("machine-detail").textContent = s.machine_words;
      if (s.chombo_rule) $("chombo-rule").textContent = s.chombo_rule;
      $("retry").hidden = !s.machine_actions.includes("retry");
      $("continue").hidden = !s.machine_actions.includes("continue");
      $("parts").replaceChildren(...Object.entries(s.parts).map(([name, st]) =>
        el("li", {}, `${name}: ${st.error ? "error — " + st.error : st.state || st.status || "running"}`)));
      const sel = $("ruleset");
      if (!sel.options.length) {
        for (const r of s.rulesets) sel.append(new Option(r, r));
        if (s.rulesets.includes("tenhou")) sel.value = "tenhou";
      }
      $("token-msg").textContent = "token accepted";
      $("held").textContent = s.held ? `result held: ${s.held}` : "";
      $("staff-alerts").replaceChildren(...s.staff_alerts.slice().reverse().map(alertCard));
      $("history").replaceChildren(...s.history.map(historyRow));
    } catch (err) { $("token-msg").textContent = err.message; }
  }

  let timer = null;       // status at most every second while states stream in
  function soon() {
    if (timer) return;
    timer = setTimeout(() => { timer = null; refreshStatus(); }, 1000);
  }

  async function refreshCalibration() {
    try {
      const blob = await call("/api/staff/calibration.jpg");
      $("calibration").src = URL.createObjectURL(blob);
    } catch (err) { say(`calibration: ${err.message}`, true); }
  }

  for (const sel of document.querySelectorAll("select.tilepick")) {
    sel.append(new Option(sel.name === "win_tile" ? "(not set apart)" : "(choose a tile)", ""));
    for (const t of TILES) sel.append(new Option(t, t));
    const preview = el("span", { class: "tile-preview" });           // the tile as a picture
    sel.after(preview);
    sel.onchange = () => preview.replaceChildren(...(sel.value ? [P.tile(sel.value)] : []));
  }
  $("what").onchange = () => {
    for (const form of document.querySelectorAll(".form")) form.hidden = form.dataset.what !== $("what").value;
    if ($("what").value === "scores" && state) {
      document.querySelectorAll(".score-input").forEach((input, i) => { input.value = state.seats[i].score; });
      document.querySelector('[data-what="scores"] [name="sticks"]').value = state.riichi_sticks;
      scoreSum();
    }
  };
  $("token").value = token();
  $("token-save").onclick = () => { sessionStorage.setItem("jantaku-staff-token", $("token").value); refreshStatus(); };
  $("start").onclick = () => {
    if (state && state.phase && !["idle", "ended"].includes(state.phase) && !state.finished
      && !window.confirm(`A game is being played (${P.roundName(state.round)}, hand ${state.hand_index + 1}). Replace it?`)) return;
    act("start_game", { ruleset: $("ruleset").value, seating: $("seating").value,
      players: [...document.querySelectorAll(".player")].map((i) => i.value) }, "start game");
  };
  $("confirm").onclick = () => act("confirm", { hand_index: Number($("hand-index").value) }, "confirm");
  $("correct").onclick = () => correct($("what").value, formData($("what").value), $("reason").value);
  $("void").onclick = () => act("void_hand", { reason: $("void-reason").value }, "void hand");
  $("reset").onclick = () => act("reset", { reason: $("reset-reason").value }, "reset");
  $("retry").onclick = () => correct("retry", {}, $("reset-reason").value, "retry");
  $("continue").onclick = () => correct("continue", {}, $("reset-reason").value, "continue");
  $("pause").onclick = () => correct("pause", {}, $("game-reason").value);
  $("resume").onclick = () => correct("resume", {}, $("game-reason").value);
  $("end-game").onclick = () => {
    if (window.confirm("End the game now and settle it at the scores as they stand?")) correct("end_game", {}, $("game-reason").value, "end game");
  };
  $("calib-refresh").onclick = refreshCalibration;

  P.connect((st) => {
    state = st;
    $("summary").textContent = `${st.table} · ${P.roundName(st.round)} · hand ${Number(st.hand_index) + 1} · honba ${st.honba}`;
    const m = st.machine || {};
    $("machine").dataset.state = m.state || "idle";
    $("machine").textContent = `machine: ${P.machineWords(m)}`;
    $("conn").dataset.connected = "true"; $("conn").textContent = "live";
    $("hand-index").value = st.hand_index;
    $("hand-now").textContent = `hand ${Number(st.hand_index) + 1} (${P.roundName(st.round)}), ${st.phase || ""}`;
    const r = st.pending_result;
    $("pending").textContent = r ? `to confirm: ${r.outcome === "win" ? (r.wins || []).map((w) =>
      `${who(w.seat)} wins ${w.seat === w.from ? "by tsumo" : "from " + who(w.from)}, ${w.points} points`).join("; ")
      : r.outcome.replace("_", " ")}` : st.result_problem ? `no result yet: ${st.result_problem}` : "no result to confirm";
    seatOptions();
    if (token()) soon();
  });
  if (token()) refreshStatus();
})();
